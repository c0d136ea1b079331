import type { Express } from 'express';
import { ValidationError } from '@inventory/core';
import { nestedFor, networkText, type ModelDef, type Queryable, type Row, type ServiceContext } from '@inventory/rest';
import { allocatePrefixes, availablePrefixes, availablePrefixIps, availableRangeIps, usageScope, vrfIs } from '../allocation';
import { ipAddress, ipRange, prefix } from '../models';
import { allocationLimit, mountAllocator, type Allocator } from './allocation';

/** NetBox's advisory-lock keys: available-prefixes, and available-ips (also taken by every IP address write). */
export const PREFIX_ALLOCATION_LOCK = 100100;
export const IP_ALLOCATION_LOCK = 100200;

const familyOf = (network: unknown): 4 | 6 => (String(network).includes(':') ? 6 : 4);
const vrfIdOf = (row: Row): number | null => (row.vrf_id === null || row.vrf_id === undefined ? null : Number(row.vrf_id));
/** A table of this service as the allocation functions name it (`ipam.prefix`). */
const tableOf = (ctx: ServiceContext, name: string) => `${ctx.db.schema}.${name}`;

/** The parent's VRF, nested (what every listed item carries), or null for the global table. */
async function nestedVrf(ctx: ServiceContext, row: Row, base: string, q: Queryable): Promise<Row | null> {
  const id = vrfIdOf(row);
  if (id === null) return null;
  return (await nestedFor(ctx, 'ipam.vrf', [id], base, q)).get(id) ?? null;
}

/**
 * The allocation functions refuse what the request checks already refused
 * (a length or count out of bounds) with a RangeError: should one get
 * through, it is the client's 400, one error object per item.
 */
async function badRequestOnRange<T>(items: Row[], field: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof RangeError) throw new ValidationError(items.map(() => ({ [field]: [err.message] })));
    throw err;
  }
}

/** A prefix's child prefixes for §4.1: those of the parent's VRF only (also for a global container). */
const childPrefixes = (ctx: ServiceContext, parent: Row) => ({ table: tableOf(ctx, prefix.table), where: vrfIs(vrfIdOf(parent)) });

/**
 * §4.1 `prefixes/{id}/available-prefixes/`: GET lists every free block
 * (`limit` ignored); POST takes, item by item, the first free block that
 * holds the requested `prefix_length`, in the parent's VRF.
 */
export const availablePrefixesOfPrefix: Allocator = {
  path: 'prefixes/:id/available-prefixes/',
  free: {
    name: 'AvailablePrefix',
    schema: {
      type: 'object',
      properties: { family: { type: 'integer', readOnly: true }, prefix: { type: 'string', readOnly: true }, vrf: { allOf: [{ $ref: '#/components/schemas/BriefVRF' }], nullable: true } },
      required: ['family', 'prefix', 'vrf'],
    },
  },
  parent: prefix,
  child: prefix,
  lockKey: PREFIX_ALLOCATION_LOCK,
  async list(q, ctx, parent, _req, base) {
    const blocks = await availablePrefixes(q, { prefix: String(parent.prefix), prefixes: childPrefixes(ctx, parent) });
    const family = familyOf(parent.prefix);
    const vrf = await nestedVrf(ctx, parent, base, q);
    return blocks.map((block) => ({ family, prefix: networkText(block), vrf }));
  },
  // NetBox's PrefixLengthSerializer: present, a JSON integer, no longer than the family allows
  check(item, parent) {
    const length = item.prefix_length;
    if (length === undefined || length === null) return { prefix_length: ['this field can not be missing'] };
    if (typeof length !== 'number' || !Number.isInteger(length)) return { prefix_length: ['this field must be int type'] };
    const family = familyOf(parent.prefix);
    if (length > (family === 4 ? 32 : 128)) return { prefix_length: [`Invalid prefix length (${length}) for IPv${family}`] };
    if (length < 0) return { prefix_length: ['Ensure this value is greater than or equal to 0.'] };
    return {};
  },
  async allocate(q, ctx, parent, items) {
    const lengths = items.map((item) => Number(item.prefix_length));
    const taken = await badRequestOnRange(items, 'prefix_length', () =>
      allocatePrefixes(q, { prefix: String(parent.prefix), prefixes: childPrefixes(ctx, parent), lengths }),
    );
    if (taken === null) return null;
    const vrf = vrfIdOf(parent);
    return items.map((item, i) => {
      const { prefix_length: _length, ...fields } = item;
      return { ...fields, prefix: taken[i], vrf };
    });
  },
};

/** POST items of available-ips: NetBox's serializer only type-checks an optional description. */
function checkDescription(item: Row): Record<string, string[]> {
  const d = item.description;
  if (d === undefined) return {};
  if (d === null) return { description: ['This field may not be null.'] };
  if (typeof d !== 'string' && typeof d !== 'number') return { description: ['Not a valid string.'] };
  return {};
}

/** Free addresses of a prefix (§4.2), the first `count`. */
function prefixIps(q: Queryable, ctx: ServiceContext, parent: Row, count: number): Promise<string[]> {
  const vrf = vrfIdOf(parent);
  // a global container's addresses are those of every VRF; its ranges, as any prefix's, those of its own
  const everyVrf = vrf === null && parent.status === 'container';
  return availablePrefixIps(q, {
    prefix: String(parent.prefix),
    isPool: parent.is_pool === true,
    markUtilized: parent.mark_utilized === true,
    addresses: { table: tableOf(ctx, ipAddress.table), where: everyVrf ? undefined : vrfIs(vrf) },
    ranges: { table: tableOf(ctx, ipRange.table), where: vrfIs(vrf) },
    // full blocks are skipped through the block-usage summary (decision 019, "Dense parents"), whose scope counts the same addresses
    usage: { table: tableOf(ctx, 'ip_block_usage'), scope: usageScope(vrf, everyVrf) },
    count,
  });
}

/** Free addresses of an IP range (§4.3), the first `count`. */
function rangeIps(q: Queryable, ctx: ServiceContext, parent: Row, count: number): Promise<string[]> {
  return availableRangeIps(q, {
    start: String(parent.start_address),
    end: String(parent.end_address),
    addresses: { table: tableOf(ctx, ipAddress.table), where: vrfIs(vrfIdOf(parent)) },
    count,
  });
}

/** NetBox's AvailableIPSerializer. */
const AVAILABLE_IP = {
  name: 'AvailableIP',
  schema: {
    type: 'object',
    properties: { family: { type: 'integer', readOnly: true }, address: { type: 'string', readOnly: true }, vrf: { allOf: [{ $ref: '#/components/schemas/BriefVRF' }], nullable: true } },
    required: ['family', 'address', 'vrf'],
  },
};

/**
 * An `available-ips` endpoint: GET lists the first `limit` free addresses
 * with the parent's mask; POST gives each item the next one and the
 * parent's VRF.
 */
function availableIps(
  path: string,
  parent: ModelDef,
  familyColumn: string,
  free: (q: Queryable, ctx: ServiceContext, parent: Row, count: number) => Promise<string[]>,
): Allocator {
  return {
    path,
    free: AVAILABLE_IP,
    parent,
    child: ipAddress,
    lockKey: IP_ALLOCATION_LOCK,
    async list(q, ctx, row, req, base) {
      const addresses = await free(q, ctx, row, allocationLimit(req.query.limit));
      const family = familyOf(row[familyColumn]);
      const vrf = await nestedVrf(ctx, row, base, q);
      return addresses.map((address) => ({ family, address, vrf }));
    },
    check: (item) => checkDescription(item),
    async allocate(q, ctx, row, items) {
      if (!items.length) return [];
      const addresses = await badRequestOnRange(items, 'non_field_errors', () => free(q, ctx, row, items.length));
      if (addresses.length < items.length) return null;
      const vrf = vrfIdOf(row);
      return items.map((item, i) => ({ ...item, address: addresses[i], vrf }));
    },
  };
}

/** §4.2 `prefixes/{id}/available-ips/`. */
export const availableIpsOfPrefix = availableIps('prefixes/:id/available-ips/', prefix, 'prefix', prefixIps);

/** §4.3 `ip-ranges/{id}/available-ips/`. */
export const availableIpsOfRange = availableIps('ip-ranges/:id/available-ips/', ipRange, 'start_address', rangeIps);

/** The allocation endpoints of prefixes and IP addresses. */
export function mountNetworks(app: Express, ctx: ServiceContext): void {
  mountAllocator(app, ctx, availablePrefixesOfPrefix);
  mountAllocator(app, ctx, availableIpsOfPrefix);
  mountAllocator(app, ctx, availableIpsOfRange);
}
