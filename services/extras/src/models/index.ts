import { tag } from './tags';
import { choiceSet, customField } from './customfields';
import { objectChange } from './objectchanges';
import { configContext, configTemplate } from './configcontexts';
import { journalEntry } from './journal';
import { imageAttachment } from './imageattachments';

export { tag, choiceSet, customField, objectChange, configContext, configTemplate, journalEntry, imageAttachment };
export const models = [tag, choiceSet, customField, objectChange, configContext, configTemplate, journalEntry, imageAttachment];
