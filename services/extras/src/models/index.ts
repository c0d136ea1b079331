import { tag } from './tags';
import { choiceSet, customField } from './customfields';
import { objectChange } from './objectchanges';

export { tag, choiceSet, customField, objectChange };
export const models = [tag, choiceSet, customField, objectChange];
