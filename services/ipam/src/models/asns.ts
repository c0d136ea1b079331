import { ValidationError } from '@inventory/core';
import { sql } from '@inventory/filtering';
import { defineModel, f, ilike, searchFilter, TENANT_GROUP_HOPS, type ModelDef, type Row } from '@inventory/rest';

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
  // `q`: the description, or the number itself when `q` is one
  filters: () => [
    searchFilter((pattern, text) => [ilike(sql`t.description`, pattern), ...(/^\d{1,10}$/.test(text) ? [sql`t.asn = ${Number(text)}::bigint`] : [])]),
  ],
});

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
  },
  brief: ['name'],
  display: (row) => `${String(row.name)} (${String(row.start)}-${String(row.end)})`,
  ordering: ['name'],
  search: ['description'],
  hooks: {
    validate: (row: Row) => {
      // NetBox's ASNRange.clean()
      if (Number(row.end) <= Number(row.start)) {
        throw new ValidationError({ non_field_errors: [`Starting ASN (${String(row.start)}) must be lower than ending ASN (${String(row.end)}).`] });
      }
    },
  },
});
