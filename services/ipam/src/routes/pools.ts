import type { Express } from 'express';
import { sql, raw } from '@inventory/filtering';
import { nestedFor, represent, type ServiceContext } from '@inventory/rest';
import { asn, asnRange, vlan, vlanGroup } from '../models';
import { mountPool, type IntegerPool } from './allocation';

/** §4.4: the VIDs of a VLAN group's range that none of its VLANs uses. */
export const availableVlans: IntegerPool = {
  path: 'vlan-groups/:id/available-vlans/',
  listed: {
    name: 'AvailableVLAN',
    schema: { type: 'object', properties: { vid: { type: 'integer' }, group: { allOf: [{ $ref: '#/components/schemas/BriefVLANGroup' }], nullable: true } }, required: ['vid', 'group'] },
  },
  parent: vlanGroup,
  child: vlan,
  lockKey: 100300,
  async free(q, ctx, group, limit) {
    const rows = await q.query(sql`
      SELECT v FROM generate_series(${group.min_vid}::int, ${group.max_vid}::int) v
       WHERE NOT EXISTS (SELECT 1 FROM ${raw(ctx.db.table(vlan.table))} u WHERE u.group_id = ${group.id} AND u.vid = v)
       ORDER BY v LIMIT ${limit}`);
    return rows.map((r) => Number(r.v));
  },
  async show(vids, group, ctx, base) {
    const [nested] = await represent(ctx, vlanGroup, [group], { mode: 'nested', base });
    return vids.map((vid) => ({ vid, group: nested }));
  },
  check(item): Record<string, string[]> {
    const name = item.name;
    if (name === undefined) return { name: ['This field is required.'] };
    if (name === null) return { name: ['This field may not be null.'] };
    if (typeof name !== 'string' && typeof name !== 'number') return { name: ['Not a valid string.'] };
    if (String(name).trim() === '') return { name: ['This field may not be blank.'] };
    if (String(name).length > 64) return { name: ['Ensure this field has no more than 64 characters.'] };
    return {};
  },
  assign: (item, vid, group) => ({ ...item, vid, group: Number(group.id) }),
};

/**
 * §4.5: the numbers of an ASN range no ASN holds (of any RIR). A range may
 * span all 4,294,967,295 numbers: the free ones are found in the gaps
 * between the used ones (sorted, through the unique index), never a series
 * over the range; only the first `limit` gaps are read.
 */
export const availableAsns: IntegerPool = {
  path: 'asn-ranges/:id/available-asns/',
  listed: {
    name: 'AvailableASN',
    schema: { type: 'object', properties: { rir: { allOf: [{ $ref: '#/components/schemas/BriefRIR' }], nullable: true }, asn: { type: 'integer' } }, required: ['rir', 'asn'] },
  },
  parent: asnRange,
  child: asn,
  lockKey: 100400,
  async free(q, ctx, range, limit) {
    const rows = await q.query(sql`
      WITH used AS (
        SELECT ${range.start}::bigint - 1 AS asn
        UNION ALL
        SELECT a.asn FROM ${raw(ctx.db.table(asn.table))} a WHERE a.asn BETWEEN ${range.start}::bigint AND ${range.end}::bigint
      ),
      gaps AS (
        SELECT asn + 1 AS first, COALESCE(lead(asn) OVER (ORDER BY asn) - 1, ${range.end}::bigint) AS last FROM used
      ),
      firsts AS (SELECT first, last FROM gaps WHERE first <= last ORDER BY first LIMIT ${limit})
      SELECT n FROM firsts, generate_series(first, LEAST(last, first + ${limit}::bigint - 1)) n ORDER BY n LIMIT ${limit}`);
    return rows.map((r) => Number(r.n));
  },
  async show(values, range, ctx, base) {
    const rir = (await nestedFor(ctx, 'ipam.rir', [Number(range.rir_id)], base)).get(Number(range.rir_id)) ?? null;
    return values.map((value) => ({ rir, asn: value }));
  },
  assign: (item, value, range) => ({ ...item, asn: value, rir: Number(range.rir_id) }),
};

/** The allocation endpoints of VLANs and ASNs. */
export function mountPools(app: Express, ctx: ServiceContext): void {
  mountPool(app, ctx, availableVlans);
  mountPool(app, ctx, availableAsns);
}
