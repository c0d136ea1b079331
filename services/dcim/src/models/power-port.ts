import { ValidationError } from '@inventory/core';
import { f, type ModelDef } from '@inventory/rest';
import { POWER_PORT_TYPE } from './component-choices';
import { component } from './component';

export const powerPort: ModelDef = component({
  label: 'dcim.powerport',
  endpoint: 'power-ports',
  table: 'power_port',
  verboseName: 'power port',
  pathEndpoint: true,
  fields: {
    type: f.choice(POWER_PORT_TYPE, { blank: true }),
    maximum_draw: f.integer({ nullable: true, min: 1 }),
    allocated_draw: f.integer({ nullable: true, min: 1 }),
  },
  // PowerPort.clean()
  validate: (row) => {
    const max = row.maximum_draw;
    const allocated = row.allocated_draw;
    if (max !== null && max !== undefined && allocated !== null && allocated !== undefined && Number(allocated) > Number(max)) {
      throw new ValidationError({ allocated_draw: [`Allocated draw cannot exceed the maximum draw (${Number(max)}W).`] });
    }
  },
});
