import { ValidationError } from '@inventory/core';
import type { Identity } from '@inventory/auth';
import { sql, raw, type Sql } from '@inventory/filtering';
import { capture } from './changes';
import type { ModelDef, ServiceContext } from '../model';
import { runChange } from './unit-of-work';

/** What a custom field edit does to stored values (NetBox: defaults written, keys removed or renamed). */
export interface CustomFieldDataOp {
  op: 'populate' | 'remove' | 'rename';
  name: string;
  default?: unknown;
  new_name?: string;
}

/** The objects an op changes, and their values after it. */
function statements(op: CustomFieldDataOp): { match: Sql; value: Sql } {
  const { name } = op;
  switch (op.op) {
    case 'populate':
      return {
        match: sql`NOT custom_field_data ? ${name}`,
        value: sql`custom_field_data || jsonb_build_object(${name}::text, ${JSON.stringify(op.default ?? null)}::jsonb)`,
      };
    case 'remove':
      return { match: sql`custom_field_data ? ${name}`, value: sql`custom_field_data - ${name}::text` };
    case 'rename':
      if (!op.new_name) break;
      return {
        match: sql`custom_field_data ? ${name}`,
        value: sql`(custom_field_data - ${name}::text) || jsonb_build_object(${op.new_name}::text, custom_field_data -> ${name}::text)`,
      };
  }
  throw new ValidationError({ op: [`Unknown operation ${String(op.op)}.`] });
}

/**
 * Applies one op to a model's stored values through the write pipeline: the
 * rows are locked and captured, rewritten set-based (their version bumped),
 * and each changed object gets its change event. Ops are idempotent (a
 * second run finds nothing to change), so a repeated call emits nothing.
 * The number of objects changed.
 */
export async function rewriteCustomFieldData(ctx: ServiceContext, m: ModelDef, op: CustomFieldDataOp, identity: Identity): Promise<number> {
  const { match, value } = statements(op);
  const table = raw(ctx.db.table(m.table));
  const { applied, recorded } = await runChange(ctx, m, identity, async (wctx) => {
    const locked = await wctx.tx.query(sql`SELECT * FROM ${table} WHERE ${match} ORDER BY id FOR UPDATE`);
    if (!locked.length) return { touched: {} };
    await capture(ctx, m, wctx, locked);
    const ids = locked.map((r) => Number(r.id));
    await wctx.tx.query(sql`UPDATE ${table} SET custom_field_data = ${value}, _version = _version + 1 WHERE id = ANY(${ids}::bigint[])`);
    return { touched: { updated: locked } };
  });
  // the custom field's own write is answered after this: the rewritten objects are shown everywhere by then
  await ctx.consistency?.settle(recorded.events);
  return applied.touched.updated?.length ?? 0;
}
