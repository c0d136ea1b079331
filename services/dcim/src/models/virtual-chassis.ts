import { ValidationError } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { capture, createdOf, defineModel, f, searchFilter, keyResolver, noteTouched, type ModelDef, type Row, type Saved, type WriteContext } from '@inventory/rest';
import { SITE_SCOPE_HOPS } from '@inventory/refs';
import { device } from './device';

/** NetBox's VirtualChassis (§2.23). */
export const virtualChassis: ModelDef = defineModel({
  label: 'dcim.virtualchassis',
  endpoint: 'virtual-chassis',
  table: 'virtual_chassis',
  verboseName: 'virtual chassis',
  verboseNamePlural: 'virtual chassis',
  fields: {
    name: f.name(64),
    domain: f.string(30),
    master: f.fk('dcim.device', 'PROTECT', { nullable: true, filterKey: 'name' }),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['name', 'master', 'member_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'description', 'domain'],
  counts: { member_count: { model: 'dcim.device', field: 'virtual_chassis' } },
  filters: (ctx) => {
    const devices = raw(ctx.db.table('device'));
    const ofMaster = (column: string) => sql`(SELECT d.${raw(column)} FROM ${devices} d WHERE d.id = t.master_id)`;
    const siteOf = (column: string) => sql`(SELECT s.${raw(column)} FROM ${devices} d JOIN ${raw(ctx.db.table('site'))} s ON s.id = d.site_id WHERE d.id = t.master_id)`;
    return [
      ...SITE_SCOPE_HOPS.map((h) => ({ kind: 'relation' as const, name: h.name, expr: siteOf(`${h.via}_id`), resolve: keyResolver(ctx, h.to, h.key, true), keyType: h.key === 'id' ? ('integer' as const) : ('string' as const) })),
      { kind: 'relation', name: 'site_id', expr: ofMaster('site_id'), resolve: keyResolver(ctx, 'dcim.site', 'id', false), keyType: 'integer' },
      { kind: 'relation', name: 'site', expr: ofMaster('site_id'), resolve: keyResolver(ctx, 'dcim.site', 'slug', false), keyType: 'string' },
      { kind: 'relation', name: 'tenant_id', expr: ofMaster('tenant_id'), resolve: keyResolver(ctx, 'tenancy.tenant', 'id', false), keyType: 'integer' },
      { kind: 'relation', name: 'tenant', expr: ofMaster('tenant_id'), resolve: keyResolver(ctx, 'tenancy.tenant', 'slug', false), keyType: 'string' },
      searchFilter((p) => [
        sql`t.name ILIKE ${p}`,
        sql`t.description ILIKE ${p}`,
        sql`t.domain ILIKE ${p}`,
        sql`EXISTS (SELECT 1 FROM ${devices} d WHERE d.virtual_chassis_id = t.id AND d.name ILIKE ${p})`,
      ]),
    ];
  },
  hooks: {
    validate: (row, existing, wctx) => checkMaster(row, existing, wctx),
    afterSave: (saved, wctx) => enrolMasters(createdOf(saved), wctx),
    beforeDelete: (ids, wctx) => releaseMembers(ids, wctx),
  },
});

/** On update, the master must already be a member. */
async function checkMaster(row: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  if (!existing || row.master_id === null || row.master_id === undefined) return;
  const [m] = await wctx.tx.query(sql`SELECT id, name, virtual_chassis_id FROM ${raw(wctx.service.db.table('device'))} WHERE id = ${row.master_id}`);
  if (m && String(m.virtual_chassis_id ?? null) !== String(existing.id)) {
    throw new ValidationError({ master: [`The selected master (${String(m.name ?? m.id)}) is not assigned to this virtual chassis.`] });
  }
}

/** A new chassis's master becomes its member in position 1. */
async function enrolMasters(created: Saved[], wctx: WriteContext): Promise<void> {
  const masters = created.map((s) => ({ vc: s.id, master: s.columns.master_id })).filter((p) => p.master !== null && p.master !== undefined);
  if (!masters.length) return;
  const table = raw(wctx.service.db.table('device'));
  const locked = await wctx.tx.query(sql`SELECT * FROM ${table} WHERE id = ANY(${masters.map((p) => p.master)}::bigint[]) ORDER BY id FOR UPDATE`);
  await capture(wctx.service, device, wctx, locked);
  await wctx.tx.query(sql`
    UPDATE ${table} d SET virtual_chassis_id = p.vc, vc_position = 1, _version = _version + 1, last_updated = now()
      FROM jsonb_to_recordset(${JSON.stringify(masters)}::jsonb) AS p(vc bigint, master bigint) WHERE d.id = p.master`);
  noteTouched(wctx, device, { updated: locked });
}

/** Former members lose their position and priority (the SET_NULL rule then clears their chassis). */
async function releaseMembers(ids: number[], wctx: WriteContext): Promise<void> {
  const table = raw(wctx.service.db.table('device'));
  const members = await wctx.tx.query(sql`SELECT * FROM ${table} WHERE virtual_chassis_id = ANY(${ids}::bigint[]) ORDER BY id FOR UPDATE`);
  if (!members.length) return;
  // captured as they were: the SET_NULL rule that follows records each member's change
  await capture(wctx.service, device, wctx, members);
  await wctx.tx.query(sql`UPDATE ${table} SET vc_position = NULL, vc_priority = NULL WHERE id = ANY(${members.map((m) => m.id)}::bigint[])`);
}
