import { sql, raw, type FilterDef } from '@inventory/filtering';
import type { Queryable, Row, ServiceContext } from '../model';
import { projectedModels, projection } from '../projections';
import { keyResolver } from './lookup-source';
import { nestedFor } from './serialize';

/**
 * NetBox 3.7's L2VPN terminations of an interface (vpn's, served by ipam):
 * read from this service's projections of them (decision 009), as an
 * interface's `l2vpn_termination` and its `l2vpn_id` / `l2vpn` filters.
 * Shared by the two services whose interfaces an L2VPN terminates on
 * (dcim's interfaces, virtualization's VM interfaces).
 */
const TERMINATIONS = 'vpn.l2vpntermination';

/** What the interface's declaration reads of ipam's vpn models (kept as projections): the terminations, by their object. */
export const L2VPN_READS = [{ label: TERMINATIONS, keys: ['assigned_object_id'] }, { label: 'vpn.l2vpn' }];

/** The L2VPN (id) an interface of `label` (alias `t`) is terminated on, or NULL. */
function terminatedOn(ctx: ServiceContext, label: string) {
  if (!projectedModels(ctx).has(TERMINATIONS)) return raw('NULL::bigint');
  return sql`(SELECT (lt.data->>'l2vpn')::bigint FROM ${projection(ctx, TERMINATIONS)} lt
     WHERE NOT lt.deleted AND (lt.data->>'assigned_object_id')::bigint = t.id AND lt.data->>'assigned_object_type' = ${label} LIMIT 1)`;
}

/** `l2vpn_id` (the L2VPN's id) and `l2vpn` (its identifier), NetBox's filters of an interface; an unknown one is a 400. */
export function l2vpnFilters(ctx: ServiceContext, label: string): FilterDef[] {
  const expr = terminatedOn(ctx, label);
  return [
    { kind: 'relation', name: 'l2vpn_id', expr, keyType: 'integer', resolve: keyResolver(ctx, 'vpn.l2vpn', 'id', false) },
    { kind: 'relation', name: 'l2vpn', expr, keyType: 'string', resolve: keyResolver(ctx, 'vpn.l2vpn', 'identifier', false) },
  ];
}

/** `l2vpn_termination`: each interface's termination in its nested form (ipam's), or null; one query for the page. */
export async function decorateL2vpnTermination(
  label: string,
  rows: Row[],
  out: Row[],
  c: { brief: boolean; service: ServiceContext; q: Queryable; base: string; wants?: (key: string) => boolean },
): Promise<void> {
  if (c.brief || !rows.length || !(c.wants?.('l2vpn_termination') ?? true)) return;
  const found = projectedModels(c.service).has(TERMINATIONS)
    ? await c.q.query(sql`SELECT id, (data->>'assigned_object_id')::bigint AS object FROM ${projection(c.service, TERMINATIONS)}
         WHERE NOT deleted AND (data->>'assigned_object_id')::bigint = ANY(${rows.map((r) => Number(r.id))}::bigint[]) AND data->>'assigned_object_type' = ${label}`)
    : [];
  const nested = found.length ? await nestedFor(c.service, TERMINATIONS, found.map((f) => Number(f.id)), c.base, c.q) : new Map<number, Row>();
  // the L2VPN as it is now (a termination's copy keeps the L2VPN as it was when the termination last changed)
  const vpnIds = [...nested.values()].map((n) => Number((n.l2vpn as Row | null)?.id)).filter((id) => Number.isSafeInteger(id));
  const vpns = vpnIds.length ? await nestedFor(c.service, 'vpn.l2vpn', vpnIds, c.base, c.q) : new Map<number, Row>();
  const byObject = new Map(found.map((f) => [Number(f.object), nested.get(Number(f.id)) ?? null]));
  rows.forEach((row, i) => {
    if (!('l2vpn_termination' in out[i])) return;
    const term = byObject.get(Number(row.id)) ?? null;
    const vpn = term ? vpns.get(Number((term.l2vpn as Row | null)?.id)) : undefined;
    // NetBox's `<assigned object> <> <L2VPN>`: this interface's own display and the L2VPN's current one
    out[i].l2vpn_termination = term && vpn ? { ...term, display: `${String(out[i].display ?? row.name)} <> ${String(vpn.display)}`, l2vpn: vpn } : term;
  });
}
