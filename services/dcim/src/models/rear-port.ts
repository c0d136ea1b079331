import { ValidationError } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { f, type ModelDef } from '@inventory/rest';
import { PORT_TYPE } from './component-choices';
import { blankColor } from './component-template';
import { component } from './component';
import { REAR_PORT_POSITIONS_MAX } from './rear-port-template';
import { retraceOnUpdate } from '../cabling/cabled';

export const rearPort: ModelDef = component({
  label: 'dcim.rearport',
  endpoint: 'rear-ports',
  table: 'rear_port',
  verboseName: 'rear port',
  fields: {
    type: f.choice(PORT_TYPE, { required: true, nullable: false }),
    color: blankColor(),
    positions: f.integer({ default: 1, nullable: false, min: 1, max: REAR_PORT_POSITIONS_MAX }),
  },
  // RearPort.clean(): no fewer positions than the front ports mapped to it
  validate: async (row, existing, wctx) => {
    if (!existing) return;
    const [mapped] = await wctx.tx.query(sql`SELECT count(*) AS n FROM ${raw(wctx.service.db.table('front_port'))} WHERE rear_port_id = ${existing.id}`);
    const n = Number(mapped.n);
    if (Number(row.positions) < n) {
      throw new ValidationError({ positions: [`The number of positions cannot be less than the number of mapped front ports (${n})`] });
    }
  },
  hooks: { afterSave: retraceOnUpdate('dcim.rearport', ['positions']) },
});
