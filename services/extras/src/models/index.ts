import { tag } from './tags';
import { choiceSet, customField } from './customfields';
import { objectChange } from './objectchanges';
import { configContext, configTemplate } from './configcontexts';

export { tag, choiceSet, customField, objectChange, configContext, configTemplate };
export const models = [tag, choiceSet, customField, objectChange, configContext, configTemplate];
