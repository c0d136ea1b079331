import { ValidationError } from '@inventory/core';
import { f, type ModelDef } from '@inventory/rest';
import { FEED_LEG, POWER_OUTLET_TYPE } from './component-choices';
import { componentTemplate, sameOwner, templateName, templateRow } from './component-template';
import { powerPortTemplate } from './power-port-template';

export const powerOutletTemplate: ModelDef = componentTemplate({
  label: 'dcim.poweroutlettemplate',
  endpoint: 'power-outlet-templates',
  table: 'power_outlet_template',
  verboseName: 'power outlet template',
  modular: true,
  fields: {
    type: f.choice(POWER_OUTLET_TYPE, { blank: true }),
    power_port: f.fk('dcim.powerporttemplate', 'SET_NULL', { filterKey: null }),
    feed_leg: f.choice(FEED_LEG, { blank: true }),
  },
  // PowerOutletTemplate.clean(): the power port template has the outlet's owner
  validate: async (row, _existing, wctx) => {
    const port = await templateRow(wctx, powerPortTemplate, row.power_port_id);
    if (!port || sameOwner(port, row)) return;
    const owner = row.device_type_id !== null && row.device_type_id !== undefined ? 'device type' : 'module type';
    throw new ValidationError({ __all__: [`Parent power port (${templateName(port)}) must belong to the same ${owner}`] });
  },
});
