import { tag } from './tags';
import { choiceSet, customField } from './customfields';
import { objectChange } from './objectchanges';
import { configContext, configTemplate } from './configcontexts';
import { customLink } from './customlinks';
import { exportTemplate } from './exporttemplates';
import { savedFilter } from './savedfilters';
import { bookmark } from './bookmarks';

export { tag, choiceSet, customField, objectChange, configContext, configTemplate };
export { customLink, exportTemplate, savedFilter, bookmark };
export const models = [tag, choiceSet, customField, objectChange, configContext, configTemplate, customLink, exportTemplate, savedFilter, bookmark];
