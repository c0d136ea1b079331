import { f, type ModelDef } from '@inventory/rest';
import { CONSOLE_PORT_TYPE } from './component-choices';
import { CONSOLE_PORT_SPEED } from './cable-choices';
import { component } from './component';

export const consolePort: ModelDef = component({
  label: 'dcim.consoleport',
  endpoint: 'console-ports',
  table: 'console_port',
  verboseName: 'console port',
  pathEndpoint: true,
  fields: {
    type: f.choice(CONSOLE_PORT_TYPE, { blank: true }),
    // not filterable in NetBox
    speed: f.choice(CONSOLE_PORT_SPEED, { nullable: true, filter: false }),
  },
});
