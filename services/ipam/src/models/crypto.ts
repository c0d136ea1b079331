import { ValidationError } from '@inventory/core';
import { sql, raw, excludedBy, compareLookup, parseBoolean, parseInteger, stringLookup, STRING_LOOKUPS, type FilterDef, type Sql } from '@inventory/filtering';
import { defineModel, f, ilike, keyResolver, searchFilter, type ModelDef, type Row, type ServiceContext } from '@inventory/rest';
import { AUTHENTICATION_ALGORITHM, AUTHENTICATION_METHOD, DH_GROUP, ENCRYPTION_ALGORITHM, IKE_MODE, IKE_VERSION, IPSEC_MODE } from './vpn-choices';

/** Django's PositiveIntegerField. */
const POSITIVE_INT = 2147483647;

const byName = (row: Row) => String(row.name);

/** NetBox's vpn filter sets' `q`: name, description or comments contain it. */
const nameDescriptionComments = () => searchFilter((pattern) => [ilike(sql`t.name`, pattern), ilike(sql`t.description`, pattern), ilike(sql`t.comments`, pattern)]);

/**
 * `<name>_id` / `<name>` (by name) through a many-to-many list of another
 * model (`ike_policy_id`: proposals that one of the given IKE policies
 * lists); an unknown value is a 400, `__n` excludes them.
 */
export function listedBy(ctx: ServiceContext, name: string, owner: string, through: string, key: 'id' | 'name'): FilterDef {
  const links = raw(ctx.db.table(through));
  return {
    kind: 'method',
    name,
    lookups: ['n'],
    ...(key === 'id' ? { valueType: 'integer' as const } : {}),
    apply: async (values, lookup) => {
      const found = await keyResolver(ctx, owner, key, false)(values);
      const missing = values.find((v) => !found.has(v));
      if (missing !== undefined) throw new ValidationError({ [lookup ? `${name}__${lookup}` : name]: [`Select a valid choice. ${missing} is not one of the available choices.`] });
      const owners = values.flatMap((v) => found.get(v) ?? []);
      return excludedBy(lookup, sql`t.id IN (SELECT l.target_id FROM ${links} l WHERE l.owner_id = ANY(${owners}::bigint[]))`);
    },
  };
}

/**
 * NetBox's `proposal_id` (MultiValueNumberFilter on `proposals__id`) and
 * `proposal` (MultiValueCharFilter on `proposals__name`) of a policy, with
 * their lookups: the policies with a proposal matching (`__n` and the
 * negated text lookups: with none matching; `__empty`: with none at all).
 */
export function proposalFilters(ctx: ServiceContext, through: string, proposals: string): FilterDef[] {
  const links = raw(ctx.db.table(through));
  const names = raw(ctx.db.table(proposals));
  const any = (cond: Sql) => sql`EXISTS (SELECT 1 FROM ${links} l JOIN ${names} p ON p.id = l.target_id WHERE l.owner_id = t.id AND ${cond})`;
  const empty = (values: string[]) => {
    const v = parseBoolean(values[values.length - 1] ?? '');
    return v === undefined ? undefined : v ? sql`NOT ${any(sql`TRUE`)}` : any(sql`TRUE`);
  };
  return [
    {
      kind: 'method',
      name: 'proposal_id',
      lookups: ['n', 'lt', 'lte', 'gt', 'gte', 'empty'],
      apply: (values, lookup) => {
        if (lookup === 'empty') return empty(values);
        const ids = values.map(parseInteger);
        if (lookup === 'n') return sql`NOT ${any(sql`p.id = ANY(${ids}::bigint[])`)}`;
        if (lookup) return any(compareLookup(sql`p.id`, lookup, ids, '::bigint'));
        return any(sql`p.id = ANY(${ids}::bigint[])`);
      },
    },
    {
      kind: 'method',
      name: 'proposal',
      lookups: STRING_LOOKUPS,
      apply: (values, lookup) => {
        if (lookup === 'empty') return empty(values);
        if (lookup === 'n') return sql`NOT ${any(sql`p.name = ANY(${values}::text[])`)}`;
        // a negated text lookup: none of the proposals matches the positive one
        if (lookup && lookup.startsWith('n')) return sql`NOT ${any(stringLookup(sql`p.name`, lookup.slice(1), values))}`;
        if (lookup) return any(stringLookup(sql`p.name`, lookup, values));
        return any(sql`p.name = ANY(${values}::text[])`);
      },
    },
  ];
}

const comments = () => ({ ...f.comments(), filter: false });

/** A set of IKE (phase 1) parameters, offered by IKE policies. */
export const ikeProposal: ModelDef = defineModel({
  label: 'vpn.ikeproposal',
  endpoint: 'ike-proposals',
  table: 'ike_proposal',
  verboseName: 'IKE proposal',
  schemaName: 'IKEProposal',
  fields: {
    name: f.name(100, { unique: true }),
    description: f.description(),
    authentication_method: f.choice(AUTHENTICATION_METHOD, { required: true }),
    encryption_algorithm: f.choice(ENCRYPTION_ALGORITHM, { required: true }),
    authentication_algorithm: f.choice(AUTHENTICATION_ALGORITHM, { blank: true }),
    group: f.choice(DH_GROUP, { required: true, help: 'Diffie-Hellman group ID' }),
    sa_lifetime: f.integer({ nullable: true, min: 0, max: POSITIVE_INT, label: 'SA lifetime', help: 'Security association lifetime (in seconds)' }),
    comments: comments(),
  },
  brief: ['name'],
  display: byName,
  ordering: ['name'],
  filters: (ctx) => [
    nameDescriptionComments(),
    listedBy(ctx, 'ike_policy_id', 'vpn.ikepolicy', 'ike_policy_proposals', 'id'),
    listedBy(ctx, 'ike_policy', 'vpn.ikepolicy', 'ike_policy_proposals', 'name'),
  ],
});

/** IKE (phase 1) policy: a version, a mode and the proposals it offers. */
export const ikePolicy: ModelDef = defineModel({
  label: 'vpn.ikepolicy',
  endpoint: 'ike-policies',
  table: 'ike_policy',
  verboseName: 'IKE policy',
  verboseNamePlural: 'IKE policies',
  schemaName: 'IKEPolicy',
  fields: {
    name: f.name(100, { unique: true }),
    description: f.description(),
    version: f.choice(IKE_VERSION, { default: 2 }),
    mode: f.choice(IKE_MODE, { blank: true }),
    proposals: f.m2m('vpn.ikeproposal', 'ike_policy_proposals', { idFilter: 'proposal_id', filterKey: null }),
    preshared_key: f.text({ label: 'pre-shared key' }),
    comments: comments(),
  },
  brief: ['name'],
  display: byName,
  ordering: ['name'],
  filters: (ctx) => [nameDescriptionComments(), ...proposalFilters(ctx, 'ike_policy_proposals', 'ike_proposal')],
  hooks: {
    validate: (row) => {
      // IKEPolicy.clean()
      const mode = row.mode ?? '';
      if (Number(row.version) === 1 && !mode) throw new ValidationError({ __all__: ['Mode is required for selected IKE version'] });
      if (Number(row.version) === 2 && mode) throw new ValidationError({ __all__: ['Mode cannot be used for selected IKE version'] });
    },
  },
});

/** A set of IPSec (phase 2) parameters, offered by IPSec policies. */
export const ipsecProposal: ModelDef = defineModel({
  label: 'vpn.ipsecproposal',
  endpoint: 'ipsec-proposals',
  table: 'ipsec_proposal',
  verboseName: 'IPSec proposal',
  schemaName: 'IPSecProposal',
  fields: {
    name: f.name(100, { unique: true }),
    description: f.description(),
    encryption_algorithm: f.choice(ENCRYPTION_ALGORITHM, { blank: true, label: 'encryption' }),
    authentication_algorithm: f.choice(AUTHENTICATION_ALGORITHM, { blank: true, label: 'authentication' }),
    sa_lifetime_seconds: f.integer({ nullable: true, min: 0, max: POSITIVE_INT, label: 'SA lifetime (seconds)', help: 'Security association lifetime (seconds)' }),
    sa_lifetime_data: f.integer({ nullable: true, min: 0, max: POSITIVE_INT, label: 'SA lifetime (KB)', help: 'Security association lifetime (in kilobytes)' }),
    comments: comments(),
  },
  brief: ['name'],
  display: byName,
  ordering: ['name'],
  filters: () => [nameDescriptionComments()],
  hooks: {
    validate: (row) => {
      // IPSecProposal.clean()
      if (!row.encryption_algorithm && !row.authentication_algorithm) throw new ValidationError({ __all__: ['Encryption and/or authentication algorithm must be defined'] });
    },
  },
});

/** IPSec (phase 2) policy: the proposals it offers and its PFS group. */
export const ipsecPolicy: ModelDef = defineModel({
  label: 'vpn.ipsecpolicy',
  endpoint: 'ipsec-policies',
  table: 'ipsec_policy',
  verboseName: 'IPSec policy',
  verboseNamePlural: 'IPSec policies',
  schemaName: 'IPSecPolicy',
  fields: {
    name: f.name(100, { unique: true }),
    description: f.description(),
    proposals: f.m2m('vpn.ipsecproposal', 'ipsec_policy_proposals', { idFilter: 'proposal_id', filterKey: null }),
    pfs_group: f.choice(DH_GROUP, { nullable: true, label: 'PFS group', help: 'Diffie-Hellman group for Perfect Forward Secrecy' }),
    comments: comments(),
  },
  brief: ['name'],
  display: byName,
  ordering: ['name'],
  filters: (ctx) => [nameDescriptionComments(), ...proposalFilters(ctx, 'ipsec_policy_proposals', 'ipsec_proposal')],
});

/** An IPSec profile: a mode with an IKE policy and an IPSec policy; tunnels use one. */
export const ipsecProfile: ModelDef = defineModel({
  label: 'vpn.ipsecprofile',
  endpoint: 'ipsec-profiles',
  table: 'ipsec_profile',
  verboseName: 'IPSec profile',
  schemaName: 'IPSecProfile',
  fields: {
    name: f.name(100, { unique: true }),
    description: f.description(),
    mode: f.choice(IPSEC_MODE, { required: true }),
    ike_policy: f.fk('vpn.ikepolicy', 'PROTECT', { required: true, filterKey: 'name', label: 'IKE policy' }),
    ipsec_policy: f.fk('vpn.ipsecpolicy', 'PROTECT', { required: true, filterKey: 'name', label: 'IPSec policy' }),
    comments: comments(),
  },
  brief: ['name'],
  display: byName,
  ordering: ['name'],
  filters: () => [nameDescriptionComments()],
});
