import { ValidationError } from '@inventory/core';
import { f, type ModelDef } from '@inventory/rest';
import { PORT_TYPE } from './component-choices';
import { blankColor, componentTemplate, templateName, templateRow } from './component-template';
import { REAR_PORT_POSITIONS_MAX, rearPortTemplate } from './rear-port-template';

export const frontPortTemplate: ModelDef = componentTemplate({
  label: 'dcim.frontporttemplate',
  endpoint: 'front-port-templates',
  table: 'front_port_template',
  verboseName: 'front port template',
  modular: true,
  fields: {
    type: f.choice(PORT_TYPE, { required: true, nullable: false }),
    color: blankColor(),
    rear_port: f.fk('dcim.rearporttemplate', 'CASCADE', { required: true, filterKey: null }),
    rear_port_position: f.integer({ default: 1, nullable: false, min: 1, max: REAR_PORT_POSITIONS_MAX }),
  },
  unique: [{ fields: ['rear_port', 'rear_port_position'], message: 'Front port template with this Rear port and Rear port position already exists.' }],
  // FrontPortTemplate.clean(): the rear port template has the front port's owner, and the position exists on it
  validate: async (row, _existing, wctx) => {
    const rear = await templateRow(wctx, rearPortTemplate, row.rear_port_id, ['positions']);
    if (!rear) return;
    if (String(rear.device_type_id ?? null) !== String(row.device_type_id ?? null)) {
      throw new ValidationError({ __all__: [`Rear port (${templateName(rear)}) must belong to the same device type`] });
    }
    if (String(rear.module_type_id ?? null) !== String(row.module_type_id ?? null)) {
      throw new ValidationError({ __all__: [`Rear port (${templateName(rear)}) must belong to the same module type`] });
    }
    const position = Number(row.rear_port_position ?? 1);
    if (position > Number(rear.positions)) {
      throw new ValidationError({
        __all__: [`Invalid rear port position (${position}); rear port ${String(rear.name)} has only ${Number(rear.positions)} positions`],
      });
    }
  },
});
