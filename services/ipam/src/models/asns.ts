import { ValidationError } from '@inventory/core';
import { excludedBy, type FilterDef, raw, sql } from '@inventory/filtering';
import { defineModel, f, ilike, keyResolver, projection, searchFilter, TENANT_GROUP_HOPS, type ModelDef, type Row, type ServiceContext } from '@inventory/rest';

/** The largest 4-byte AS number (RFC 6793). */
export const ASN_MAX = 4294967295;

/** `AS65000`; beyond 16 bits also the asdot form, `AS4200000000 (64086.59904)`. */
export function asnDisplay(asn: number): string {
  return asn > 65535 ? `AS${asn} (${Math.floor(asn / 65536)}.${asn % 65536})` : `AS${asn}`;
}

/** An autonomous system number, allocated by a RIR. Sites and circuit providers list theirs (their `asns`). */
export const asn: ModelDef = defineModel({
  label: 'ipam.asn',
  endpoint: 'asns',
  verboseName: 'ASN',
  fields: {
    asn: { type: 'bigint', required: true, min: 1, max: ASN_MAX, unique: 'ASN with this ASN already exists.', label: 'ASN' },
    rir: f.fk('ipam.rir', 'PROTECT', { required: true, label: 'RIR' }),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['asn'],
  display: (row) => asnDisplay(Number(row.asn)),
  ordering: ['asn'],
  // sites and circuit providers list their ASNs (their `asns`): counted from this service's projections of them
  counts: {
    site_count: { model: 'dcim.site', field: 'asns', many: true },
    provider_count: { model: 'circuits.provider', field: 'asns', many: true },
  },
  // `q`: the description, or the number itself when `q` is one
  filters: (ctx) => [
    searchFilter((pattern, text) => [ilike(sql`t.description`, pattern), ...(/^\d{1,10}$/.test(text) ? [sql`t.asn = ${Number(text)}::bigint`] : [])]),
    siteFilter(ctx, 'site_id', 'id'),
    siteFilter(ctx, 'site', 'slug'),
  ],
});

/** `site_id` / `site` (slug): ASNs that one of the given sites lists, through the projection of dcim's sites. */
function siteFilter(ctx: ServiceContext, name: string, key: 'id' | 'slug'): FilterDef {
  return {
    kind: 'method',
    name,
    lookups: ['n'],
    valueType: key === 'id' ? 'integer' : 'string',
    apply: async (values, lookup) => {
      const found = await keyResolver(ctx, 'dcim.site', key, false)(values);
      const ids: number[] = [];
      for (const v of values) {
        const hit = found.get(v);
        if (!hit) throw new ValidationError({ [lookup ? `${name}__${lookup}` : name]: [`Select a valid choice. ${v} is not one of the available choices.`] });
        ids.push(...hit);
      }
      const listed = sql`EXISTS (SELECT 1 FROM ${projection(ctx, 'dcim.site')} s WHERE NOT s.deleted AND s.id = ANY(${ids}::bigint[]) AND s.data->'asns' @> jsonb_build_array(t.id))`;
      return excludedBy(lookup, listed);
    },
  };
}

/** A range of AS numbers of one RIR, to allocate ASNs from (`available-asns`). Its ASNs are those numerically inside it. */
export const asnRange: ModelDef = defineModel({
  label: 'ipam.asnrange',
  endpoint: 'asn-ranges',
  table: 'asn_range',
  verboseName: 'ASN range',
  fields: {
    name: f.name(100, { unique: 'ASN range with this Name already exists.' }),
    slug: f.slug(100, { unique: 'ASN range with this Slug already exists.' }),
    rir: f.fk('ipam.rir', 'PROTECT', { required: true, label: 'RIR' }),
    start: { type: 'bigint', required: true, min: 1, max: ASN_MAX },
    end: { type: 'bigint', required: true, min: 1, max: ASN_MAX },
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    description: f.description(),
    // the ASNs numerically inside the range (ASNRange.get_child_asns), counted per page (decorate)
    asn_count: f.integer({ readOnly: true, virtual: true, filter: false, orderable: false, label: 'ASN count' }),
  },
  brief: ['name'],
  display: (row) => `${String(row.name)} (${String(row.start)}-${String(row.end)})`,
  ordering: ['name'],
  search: ['description'],
  hooks: {
    validate: (row: Row) => {
      // NetBox's ASNRange.clean()
      if (Number(row.end) <= Number(row.start)) {
        throw new ValidationError({ __all__: [`Starting ASN (${String(row.start)}) must be lower than ending ASN (${String(row.end)}).`] });
      }
    },
    decorate: async (rows, out, { brief, q, service, wants }) => {
      if (brief || wants?.('asn_count') === false || !rows.length) return;
      const counted = await q.query(sql`
        SELECT r.id, count(a.id) AS n FROM ${raw(service.db.table('asn_range'))} r
          LEFT JOIN ${raw(service.db.table('asn'))} a ON a.asn BETWEEN r.start AND r."end"
         WHERE r.id = ANY(${rows.map((r) => Number(r.id))}::bigint[]) GROUP BY r.id`);
      const byId = new Map(counted.map((c) => [Number(c.id), Number(c.n)]));
      rows.forEach((row, i) => {
        // last, after the timestamps, as NetBox's serializer lists it
        delete out[i].asn_count;
        out[i].asn_count = byId.get(Number(row.id)) ?? 0;
      });
    },
  },
});
