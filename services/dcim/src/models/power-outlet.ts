import { ValidationError } from '@inventory/core';
import { f, type ModelDef } from '@inventory/rest';
import { FEED_LEG, POWER_OUTLET_TYPE } from './component-choices';
import { component, componentName, componentRow } from './component';

export const powerOutlet: ModelDef = component({
  label: 'dcim.poweroutlet',
  endpoint: 'power-outlets',
  table: 'power_outlet',
  verboseName: 'power outlet',
  pathEndpoint: true,
  fields: {
    type: f.choice(POWER_OUTLET_TYPE, { blank: true }),
    // NetBox has no power_port_id filter on outlets
    power_port: f.fk('dcim.powerport', 'SET_NULL', { filterKey: null, filter: false }),
    feed_leg: f.choice(FEED_LEG, { blank: true }),
  },
  // PowerOutlet.clean(): the power port is on the outlet's device
  validate: async (row, _existing, wctx) => {
    const port = await componentRow(wctx, 'power_port', row.power_port_id);
    if (port && String(port.device_id) !== String(row.device_id)) {
      throw new ValidationError({ __all__: [`Parent power port (${componentName(port)}) must belong to the same device`] });
    }
  },
});
