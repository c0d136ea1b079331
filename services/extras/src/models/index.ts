import { tag } from './tags';
import { choiceSet, customField } from './custom-fields';
import { objectChange } from './object-changes';
import { dataSource, dataFile } from './data-sources';
import { job } from './jobs';
import { configContext, configTemplate } from './config-contexts';
import { journalEntry } from './journal';
import { imageAttachment } from './image-attachments';
import { customLink } from './custom-links';
import { exportTemplate } from './export-templates';
import { savedFilter } from './saved-filters';
import { bookmark } from './bookmarks';

export { tag, choiceSet, customField, objectChange, configContext, configTemplate, journalEntry, imageAttachment };
export { customLink, exportTemplate, savedFilter, bookmark };
export { dataSource, dataFile, job };
/** In dependency order (tables are created in this order): data sources and files before what syncs from them. */
export const models = [tag, choiceSet, customField, objectChange, dataSource, dataFile, job, configContext, configTemplate, journalEntry, imageAttachment, customLink, exportTemplate, savedFilter, bookmark];
