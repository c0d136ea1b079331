import { f, type ModelDef } from '@inventory/rest';
import { PORT_TYPE } from './component-choices';
import { blankColor, componentTemplate } from './component-template';

/** NetBox's REAR_PORT_POSITIONS_MAX. */
export const REAR_PORT_POSITIONS_MAX = 1024;

export const rearPortTemplate: ModelDef = componentTemplate({
  label: 'dcim.rearporttemplate',
  endpoint: 'rear-port-templates',
  table: 'rear_port_template',
  verboseName: 'rear port template',
  modular: true,
  fields: {
    type: f.choice(PORT_TYPE, { required: true, nullable: false }),
    color: blankColor(),
    positions: f.integer({ default: 1, nullable: false, min: 1, max: REAR_PORT_POSITIONS_MAX }),
  },
});
