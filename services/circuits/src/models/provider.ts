import { excludedBy, type FilterDef, raw, sql } from '@inventory/filtering';
import { ValidationError } from '@inventory/core';
import { defineModel, f, ilike, searchFilter, keyResolver, represent, type ModelDef, type ServiceContext } from '@inventory/rest';
import { providerAccount } from './provider-account';

import { providerReach, terminationFilters } from './termination-filters';

export const provider: ModelDef = defineModel({
  label: 'circuits.provider',
  endpoint: 'providers',
  verboseName: 'provider',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    // the provider's accounts (a reverse relation): read-only, as NetBox's cannot be assigned
    accounts: f.json({ readOnly: true, virtual: true, filter: false, orderable: false }),
    description: f.description(),
    comments: f.comments(),
    // ipam's ASNs (written as ids); `asn` (by number) is the provider's own filter below
    asns: f.m2m('ipam.asn', 'provider_asns', { idFilter: 'asn_id', filterKey: null }),
  },
  brief: ['name', 'slug', 'circuit_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'description', 'comments'],
  counts: { circuit_count: { model: 'circuits.circuit', field: 'provider' } },
  filters: (ctx) => [providerSearch(ctx), asnFilter(ctx), ...terminationFilters(ctx, providerReach(ctx), false)],
  // NetBox's Contacts filters (contact, contact_role, contact_group), through tenancy's assignments
  contacts: true,
  hooks: {
    // `accounts`: every provider's accounts of the page in one statement, in the accounts' order
    decorate: async (rows, out, { brief, service, q, base, wants }) => {
      if (brief || rows.length === 0 || wants?.('accounts') === false) return;
      const ids = rows.map((r) => Number(r.id));
      const accounts = await q.query(
        sql`SELECT * FROM ${raw(service.db.table(providerAccount.table))} WHERE provider_id = ANY(${ids}::bigint[]) ORDER BY provider_id, account, id`,
      );
      const nested = await represent(service, providerAccount, accounts, { mode: 'nested', base, q });
      const byProvider = new Map<number, unknown[]>();
      accounts.forEach((a, i) => byProvider.set(Number(a.provider_id), [...(byProvider.get(Number(a.provider_id)) ?? []), nested[i]]));
      rows.forEach((row, i) => {
        out[i].accounts = byProvider.get(Number(row.id)) ?? [];
      });
    },
  },
});

/** `q`: name, description, comments, and the provider's accounts' account and name. */
function providerSearch(ctx: ServiceContext): FilterDef {
  const accounts = raw(ctx.db.table(providerAccount.table));
  return searchFilter((p) => [
    ilike(sql`t.name`, p),
    ilike(sql`t.description`, p),
    ilike(sql`t.comments`, p),
    sql`EXISTS (SELECT 1 FROM ${accounts} a WHERE a.provider_id = t.id AND (a.account ILIKE ${p} OR a.name ILIKE ${p}))`,
  ]);
}

/** `asn`: providers with an ASN of that number (ipam's, through this service's projection of ASNs). */
function asnFilter(ctx: ServiceContext): FilterDef {
  const resolve = keyResolver(ctx, 'ipam.asn', 'asn', false);
  const links = raw(ctx.db.table('provider_asns'));
  return {
    kind: 'method',
    name: 'asn',
    lookups: ['n'],
    valueType: 'integer',
    apply: async (values, lookup) => {
      const found = await resolve(values);
      const ids: number[] = [];
      for (const v of values) {
        const hit = found.get(v);
        if (!hit) throw new ValidationError({ [lookup ? `asn__${lookup}` : 'asn']: [`Select a valid choice. ${v} is not one of the available choices.`] });
        ids.push(...hit);
      }
      const exists = sql`EXISTS (SELECT 1 FROM ${links} l WHERE l.owner_id = t.id AND l.target_id = ANY(${ids}::bigint[]))`;
      return excludedBy(lookup, exists);
    },
  };
}
