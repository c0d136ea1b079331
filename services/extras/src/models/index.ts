import { tag } from './tags';
import { choiceSet, customField } from './customfields';
import { objectChange } from './objectchanges';
import { configContext, configTemplate } from './configcontexts';
import { journalEntry } from './journal';
import { imageAttachment } from './imageattachments';
import { customLink } from './customlinks';
import { exportTemplate } from './exporttemplates';
import { savedFilter } from './savedfilters';
import { bookmark } from './bookmarks';

export { tag, choiceSet, customField, objectChange, configContext, configTemplate, journalEntry, imageAttachment };
export { customLink, exportTemplate, savedFilter, bookmark };
export const models = [tag, choiceSet, customField, objectChange, configContext, configTemplate, journalEntry, imageAttachment, customLink, exportTemplate, savedFilter, bookmark];
