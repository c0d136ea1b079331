import { f, type ModelDef } from '@inventory/rest';
import { CONSOLE_PORT_TYPE } from './component-choices';
import { componentTemplate } from './component-template';

export const consolePortTemplate: ModelDef = componentTemplate({
  label: 'dcim.consoleporttemplate',
  endpoint: 'console-port-templates',
  table: 'console_port_template',
  verboseName: 'console port template',
  modular: true,
  fields: { type: f.choice(CONSOLE_PORT_TYPE, { blank: true }) },
});
