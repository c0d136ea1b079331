import { ValidationError } from '@inventory/core';
import { f, type ModelDef } from '@inventory/rest';
import { POWER_PORT_TYPE } from './component-choices';
import { componentTemplate } from './component-template';

export const powerPortTemplate: ModelDef = componentTemplate({
  label: 'dcim.powerporttemplate',
  endpoint: 'power-port-templates',
  table: 'power_port_template',
  verboseName: 'power port template',
  modular: true,
  fields: {
    type: f.choice(POWER_PORT_TYPE, { blank: true }),
    maximum_draw: f.integer({ nullable: true, min: 1 }),
    allocated_draw: f.integer({ nullable: true, min: 1 }),
  },
  validate: (row) => {
    const max = row.maximum_draw;
    const allocated = row.allocated_draw;
    if (max !== null && max !== undefined && allocated !== null && allocated !== undefined && Number(allocated) > Number(max)) {
      throw new ValidationError({ allocated_draw: [`Allocated draw cannot exceed the maximum draw (${Number(max)}W).`] });
    }
  },
});
