import { f, type ModelDef } from '@inventory/rest';
import { componentTemplate } from './component-template';

export const moduleBayTemplate: ModelDef = componentTemplate({
  label: 'dcim.modulebaytemplate',
  endpoint: 'module-bay-templates',
  table: 'module_bay_template',
  verboseName: 'module bay template',
  modular: false,
  fields: { position: f.string(30) },
});
