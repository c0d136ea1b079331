import { sql, raw } from '@inventory/filtering';
import { defineModel, f, type ModelDef } from '@inventory/rest';
import { CABLE_END } from './cable-choices';
import { isTerminable } from '../cabling/paths';

/**
 * NetBox's CableTermination, read-only here: ends are written with their
 * cable (`a_terminations` / `b_terminations`), where the paths are traced.
 */
export const cableTermination: ModelDef = defineModel({
  label: 'dcim.cabletermination',
  endpoint: 'cable-terminations',
  table: 'cable_termination',
  verboseName: 'cable termination',
  fields: {
    // the cable's PK, as NetBox shows it (the engine does not cascade it: a cable's delete hook removes its ends)
    cable: { type: 'bigint', required: true, readOnly: true },
    cable_end: f.choice(CABLE_END, { required: true, plain: true, readOnly: true }),
    termination_type: f.contentType({ required: true, readOnly: true, allowed: isTerminable }),
    termination_id: { type: 'bigint', required: true, readOnly: true },
    termination: f.generic('termination_type', 'termination_id'),
  },
  // the object it ends on too: other services render link peers from it (circuits' terminations)
  brief: ['cable', 'cable_end', 'termination_type', 'termination_id', 'termination', 'created', 'last_updated'],
  display: (row, rep) => `#${String(row.cable)}: ${String((rep.termination as { display?: string } | null)?.display ?? row.termination_id)}`,
  ordering: ['cable', 'cable_end', 'id'],
  tags: false,
  customFields: false,
  readOnly: true,
  unique: [{ fields: ['termination_type', 'termination_id'], message: 'Cable termination with this Termination type and Termination id already exists.' }],
  hooks: {
    // display names the cable as its own str() does: its label, else #<id>
    decorate: async (rows, out, { service, q, wants }) => {
      if (wants?.('display') === false) return;
      const cables = await q.query(sql`SELECT id, label FROM ${raw(service.db.table('cable'))} WHERE id = ANY(${rows.map((r) => r.cable)}::bigint[])`);
      const label = new Map(cables.map((c) => [Number(c.id), c.label ? String(c.label) : `#${String(c.id)}`]));
      rows.forEach((r, i) => {
        const name = label.get(Number(r.cable));
        if (name) out[i].display = String(out[i].display).replace(/^#\d+/, name);
      });
    },
  },
});
