import { tag } from './tags';
import { choiceSet, customField } from './customfields';

export { tag, choiceSet, customField };
export const models = [tag, choiceSet, customField];
