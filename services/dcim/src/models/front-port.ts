import { ValidationError } from '@inventory/core';
import { f, type ModelDef } from '@inventory/rest';
import { PORT_TYPE } from './component-choices';
import { blankColor } from './component-template';
import { component, componentName, componentRow } from './component';
import { REAR_PORT_POSITIONS_MAX } from './rear-port-template';
import { sql, raw } from '@inventory/filtering';
import { node, retraceThrough } from '../cabling/paths';

export const frontPort: ModelDef = component({
  label: 'dcim.frontport',
  endpoint: 'front-ports',
  table: 'front_port',
  verboseName: 'front port',
  fields: {
    type: f.choice(PORT_TYPE, { required: true, nullable: false }),
    color: blankColor(),
    // NetBox has no rear_port_id filter on front ports
    rear_port: f.fk('dcim.rearport', 'CASCADE', { required: true, filterKey: null, filter: false }),
    rear_port_position: f.integer({ default: 1, nullable: false, min: 1, max: REAR_PORT_POSITIONS_MAX }),
  },
  unique: [{ fields: ['rear_port', 'rear_port_position'], message: 'Front port with this Rear port and Rear port position already exists.' }],
  // FrontPort.clean(): the rear port is on the same device, and has the position
  validate: async (row, _existing, wctx) => {
    const rear = await componentRow(wctx, 'rear_port', row.rear_port_id, ['positions']);
    if (!rear) return;
    if (String(rear.device_id) !== String(row.device_id)) {
      throw new ValidationError({ rear_port: [`Rear port (${componentName(rear)}) must belong to the same device`] });
    }
    const position = Number(row.rear_port_position ?? 1);
    if (position > Number(rear.positions)) {
      throw new ValidationError({
        rear_port_position: [`Invalid rear port position (${position}): Rear port ${String(rear.name)} has only ${Number(rear.positions)} positions`],
      });
    }
  },
  // a new front port, or one moved to another position, changes the paths through its rear port (NetBox leaves them until the next cable change)
  hooks: {
    afterSave: async (saved, wctx) => {
      for (const { id, existing } of saved) {
        const [row] = await wctx.tx.query(sql`SELECT rear_port_id, rear_port_position FROM ${raw(wctx.service.db.table('front_port'))} WHERE id = ${id}`);
        if (existing && String(existing.rear_port_id) === String(row.rear_port_id) && Number(existing.rear_port_position) === Number(row.rear_port_position)) continue;
        const rears = [row.rear_port_id, existing?.rear_port_id].filter((r) => r !== null && r !== undefined).map((r) => node('dcim.rearport', Number(r)));
        await retraceThrough(wctx.service, wctx.tx, [node('dcim.frontport', id), ...rears]);
      }
    },
  },
});
