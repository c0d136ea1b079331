import { f, type ModelDef } from '@inventory/rest';
import { CONSOLE_PORT_TYPE } from './component-choices';
import { componentTemplate } from './component-template';

export const consoleServerPortTemplate: ModelDef = componentTemplate({
  label: 'dcim.consoleserverporttemplate',
  endpoint: 'console-server-port-templates',
  table: 'console_server_port_template',
  verboseName: 'console server port template',
  modular: true,
  fields: { type: f.choice(CONSOLE_PORT_TYPE, { blank: true }) },
});
