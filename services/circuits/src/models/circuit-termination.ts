import { SITE_SCOPE_HOPS } from '@inventory/refs';
import { ValidationError } from '@inventory/core';
import { sql, raw, type FilterDef } from '@inventory/filtering';
import { defineModel, f, ilike, searchFilter, type ModelDef, type Row, type ServiceContext } from '@inventory/rest';
import { TERMINATION_SIDE } from './choices';
import { CABLE_READS, cableFields, cableFilters, decorateCableEnds } from './cable-ends';

/**
 * A circuit's end. Its cable fields (`cable`, `cable_end`, `link_peers`,
 * `link_peers_type`, `_occupied`) and the `cabled`, `occupied` and
 * `cable_end` filters read dcim's cables from projections (cable-ends.ts);
 * `paths/` is dcim's (the gateway routes it there: the paths are dcim's).
 */
export const circuitTermination: ModelDef = defineModel({
  label: 'circuits.circuittermination',
  endpoint: 'circuit-terminations',
  table: 'circuit_termination',
  verboseName: 'circuit termination',
  fields: {
    circuit: f.fk('circuits.circuit', 'CASCADE', { required: true, filterKey: null }),
    term_side: f.choice(TERMINATION_SIDE, { required: true, plain: true, singleFilter: true, label: 'termination' }),
    site: f.fk('dcim.site', 'PROTECT', { nullable: true, hops: SITE_SCOPE_HOPS }),
    provider_network: f.fk('circuits.providernetwork', 'PROTECT', { nullable: true, filterKey: null }),
    port_speed: f.integer({ nullable: true, min: 0, label: 'port speed (Kbps)' }),
    upstream_speed: f.integer({ nullable: true, min: 0, label: 'upstream speed (Kbps)' }),
    xconnect_id: f.string(50, { label: 'cross-connect ID' }),
    pp_info: f.string(100, { label: 'patch panel/port(s)', filter: false }),
    description: f.description(),
    mark_connected: f.boolean(false, { filter: false }),
    ...cableFields(),
  },
  brief: ['circuit', 'term_side', 'cable', '_occupied'],
  display: (row, rep) => `${String((rep.circuit as { cid?: string } | null)?.cid ?? '')}: Termination ${String(row.term_side)}`,
  ordering: ['circuit', 'term_side'],
  search: ['xconnect_id', 'pp_info', 'description'],
  unique: [{ fields: ['circuit', 'term_side'], message: 'Circuit termination with this Circuit and Termination already exists.' }],
  skipFilters: SITE_SCOPE_HOPS.map((h) => h.name),
  filters: (ctx) => [terminationSearch(ctx), ...cableFilters(ctx)],
  reads: CABLE_READS,
  hooks: {
    validate: (row) => checkAttachment(row),
    decorate: (rows, out, c) => decorateCableEnds(rows, out, c),
  },
});

/** NetBox's CircuitTermination.clean(): a site or a provider network, not both. */
function checkAttachment(row: Row): void {
  const has = (v: unknown) => v !== null && v !== undefined;
  if (!has(row.site_id) && !has(row.provider_network_id)) {
    throw new ValidationError({ __all__: ['A circuit termination must attach to either a site or a provider network.'] });
  }
  if (has(row.site_id) && has(row.provider_network_id)) {
    throw new ValidationError({ __all__: ['A circuit termination cannot attach to both a site and a provider network.'] });
  }
}

/** `q`: the circuit's ID, the cross-connect ID, patch panel info and description. */
function terminationSearch(ctx: ServiceContext): FilterDef {
  const circuits = raw(ctx.db.table('circuit'));
  return searchFilter((p) => [
    ilike(sql`t.xconnect_id`, p),
    ilike(sql`t.pp_info`, p),
    ilike(sql`t.description`, p),
    sql`EXISTS (SELECT 1 FROM ${circuits} c WHERE c.id = t.circuit_id AND c.cid ILIKE ${p})`,
  ]);
}
