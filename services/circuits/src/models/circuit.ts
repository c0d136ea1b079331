import { ValidationError } from '@inventory/core';
import { sql, raw, type FilterDef } from '@inventory/filtering';
import { defineModel, f, ilike, searchFilter, nestedFor, objectUrl, TENANT_GROUP_HOPS, type ModelDef, type Row, type ServiceContext, type WriteContext } from '@inventory/rest';
import { CIRCUIT_STATUS } from './choices';
import { circuitTermination } from './circuit-termination';
import { providerAccount } from './provider-account';

import { circuitReach, terminationFilters } from './termination-filters';

export const circuit: ModelDef = defineModel({
  label: 'circuits.circuit',
  endpoint: 'circuits',
  verboseName: 'circuit',
  fields: {
    cid: f.name(100, { label: 'circuit ID' }),
    provider: f.fk('circuits.provider', 'PROTECT', { required: true }),
    // NetBox filters accounts by id alone (they have no slug)
    provider_account: f.fk('circuits.provideraccount', 'PROTECT', { nullable: true, filterKey: null }),
    type: f.fk('circuits.circuittype', 'PROTECT', { required: true }),
    status: f.choice(CIRCUIT_STATUS, { default: 'active', nullable: false }),
    // NetBox's Tenancy filters: tenant, tenant_id, and the tenant's group at any depth
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    install_date: f.date({ nullable: true, label: 'installed' }),
    termination_date: f.date({ nullable: true, label: 'terminates' }),
    commit_rate: f.integer({ nullable: true, min: 0, label: 'commit rate (Kbps)' }),
    description: f.description(),
    // the circuit's terminations of side A and Z (NetBox keeps them as columns updated by the terminations' saves):
    // read from the terminations themselves, one statement per page for all the circuits on it
    termination_a: f.json({ readOnly: true, virtual: true, filter: false, orderable: false }),
    termination_z: f.json({ readOnly: true, virtual: true, filter: false, orderable: false }),
    comments: f.comments(),
  },
  brief: ['cid'],
  display: (row) => String(row.cid),
  ordering: ['provider', 'provider_account', 'cid'],
  search: ['cid', 'description', 'comments'],
  unique: [
    { fields: ['provider', 'cid'], message: 'Circuit with this Provider and Circuit ID already exists.' },
    { fields: ['provider_account', 'cid'], message: 'Circuit with this Provider account and Circuit ID already exists.' },
  ],
  filters: (ctx) => [circuitSearch(ctx), ...terminationFilters(ctx, circuitReach(ctx), true)],
  // NetBox's Contacts filters (contact, contact_role, contact_group), through tenancy's assignments
  contacts: true,
  hooks: {
    validate: (row, _existing, wctx) => checkAccount(row, wctx),
    decorate: async (rows, out, { brief, service, q, base, wants }) => {
      if (brief || rows.length === 0) return;
      const sides = (['A', 'Z'] as const).filter((side) => wants?.(`termination_${side.toLowerCase()}`) !== false);
      if (!sides.length) return;
      const ends = await terminationsOf(service, rows, sides, base, q);
      rows.forEach((row, i) => {
        for (const side of sides) out[i][`termination_${side.toLowerCase()}`] = ends.get(`${Number(row.id)}:${side}`) ?? null;
      });
    },
  },
});

/**
 * NetBox's representation of a circuit's termination on the circuit
 * (`termination_a`, `termination_z`), keyed `<circuit id>:<side>`: one
 * statement for the terminations of every circuit of the page, one for the
 * provider networks and one for the sites (this service's projection) among them.
 */
async function terminationsOf(ctx: ServiceContext, circuits: Row[], sides: readonly string[], base: string, q: Parameters<typeof nestedFor>[4]): Promise<Map<string, Row>> {
  const ids = circuits.map((c) => Number(c.id));
  const cids = new Map(circuits.map((c) => [Number(c.id), String(c.cid)]));
  const ends = await (q ?? ctx.db).query(
    sql`SELECT id, circuit_id, term_side, site_id, provider_network_id, port_speed, upstream_speed, xconnect_id, description
          FROM ${raw(ctx.db.table(circuitTermination.table))}
         WHERE circuit_id = ANY(${ids}::bigint[]) AND term_side = ANY(${[...sides]}::text[])`,
  );
  const out = new Map<string, Row>();
  if (!ends.length) return out;
  const sites = await nestedFor(ctx, 'dcim.site', ends.map((e) => e.site_id as number), base, q);
  const networks = await nestedFor(ctx, 'circuits.providernetwork', ends.map((e) => e.provider_network_id as number), base, q);
  for (const e of ends) {
    const side = String(e.term_side);
    out.set(`${Number(e.circuit_id)}:${side}`, {
      id: Number(e.id),
      url: objectUrl(ctx, circuitTermination, base, e.id),
      display: `${cids.get(Number(e.circuit_id)) ?? ''}: Termination ${side}`,
      site: e.site_id === null ? null : (sites.get(Number(e.site_id)) ?? null),
      provider_network: e.provider_network_id === null ? null : (networks.get(Number(e.provider_network_id)) ?? null),
      port_speed: e.port_speed,
      upstream_speed: e.upstream_speed,
      xconnect_id: e.xconnect_id,
      description: e.description,
    });
  }
  return out;
}

/** `q`: the circuit ID, description and comments, and its terminations' cross-connect ID, patch panel info and description. */
function circuitSearch(ctx: ServiceContext): FilterDef {
  const terminations = raw(ctx.db.table(circuitTermination.table));
  return searchFilter((p) => [
    ilike(sql`t.cid`, p),
    ilike(sql`t.description`, p),
    ilike(sql`t.comments`, p),
    sql`EXISTS (SELECT 1 FROM ${terminations} ct WHERE ct.circuit_id = t.id AND (ct.xconnect_id ILIKE ${p} OR ct.pp_info ILIKE ${p} OR ct.description ILIKE ${p}))`,
  ]);
}

/** NetBox's Circuit.clean(): the account belongs to the circuit's provider. */
async function checkAccount(row: Row, wctx: WriteContext): Promise<void> {
  if (row.provider_account_id === null || row.provider_account_id === undefined) return;
  const [account] = await wctx.tx.query(
    sql`SELECT provider_id FROM ${raw(wctx.service.db.table(providerAccount.table))} WHERE id = ${row.provider_account_id}`,
  );
  if (account && Number(account.provider_id) !== Number(row.provider_id)) {
    throw new ValidationError({ provider_account: ['The assigned account must belong to the assigned provider.'] });
  }
}
