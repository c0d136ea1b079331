import { randomUUID } from 'node:crypto';
import { Cache, ServiceUnavailable } from '@inventory/core';
import { CONTENT_TYPES } from '@inventory/refs';
import type { OnDelete, ModelDef, ServiceContext, Row } from '../model';
import { resolveRefs, dependentsConflict, genericAllows, protectedGenerics } from '../write';
import { projectedModels } from '../projections';

/**
 * Deleting an object that other services refer to (ARCHITECTURE.md,
 * 'Cross-service references', 5): every service tells which of its fields
 * refer to which other services' models (derived from its declarations), and
 * names the objects that a PROTECT reference keeps. The owner asks them all
 * before it deletes, one call per service, in parallel; a service that does
 * not answer makes the delete a 503 (it may hold a protecting reference), and
 * nothing is deleted.
 */

export interface DeclaredReference {
  /** The referring model (here). */
  model: string;
  field: string;
  /** The referenced model (another service's). */
  to: string;
  onDelete: OnDelete;
}

/** This service's references to other services' models. */
export function declaredReferences(ctx: ServiceContext): DeclaredReference[] {
  const out: DeclaredReference[] = [];
  for (const m of ctx.models.values()) {
    for (const [name, field] of Object.entries(m.fields)) {
      if (field.type === 'fk' && !field.virtual && !ctx.models.has(field.to)) out.push({ model: m.label, field: name, to: field.to, onDelete: field.onDelete });
    }
  }
  // a generic relation whose objects are kept here (a VLAN group's scope, while it holds VLANs) keeps its targets too:
  // their owner asks before it deletes them (`/internal/dependents` answers through protectingObjects)
  for (const { model, name, field } of protectedGenerics(ctx)) {
    for (const ct of CONTENT_TYPES) {
      if (!ctx.models.has(ct.label) && genericAllows(model, field, ct.label)) out.push({ model: model.label, field: name, to: ct.label, onDelete: 'PROTECT' });
    }
  }
  return out;
}

/** Other services that hold objects (the catalogue names them as owners; the gateway holds none). */
function otherServices(ctx: ServiceContext): string[] {
  const owners = new Set(CONTENT_TYPES.map((ct) => ct.service));
  return ctx.refs.services().filter((s) => s !== ctx.name && owners.has(s));
}

// what each service refers to, learned once a minute (a redeployed service may declare new references)
const referencesOf = new WeakMap<ServiceContext, Cache<string, { protects: string[] }>>();

/**
 * The models of other services that `service` protects (PROTECT references);
 * 503 naming it when it cannot tell. A service that only clears or cascades
 * need not be asked: it applies its rule from the delete event, even later.
 */
async function protectedBy(ctx: ServiceContext, service: string): Promise<Set<string>> {
  let cache = referencesOf.get(ctx);
  if (!cache) referencesOf.set(ctx, (cache = new Cache({ max: 100, ttlMs: 60_000 })));
  const known = await cache
    .load(service, async () => {
      const res = await ctx.refs.call<{ references: DeclaredReference[] }>(service, 'GET', '/internal/references');
      return { protects: res.references.filter((r) => r.onDelete === 'PROTECT').map((r) => r.to) };
    })
    .catch(() => undefined);
  if (!known) throw new ServiceUnavailable(`Service ${service} is unavailable.`);
  return new Set(known.protects);
}

/** What the owner of a delete tells the services that reserved its objects, once it has decided. */
export interface Reserved {
  /** The delete committed (`deleted`: the objects with their versions, tombstoned there at once) or did not (none). */
  release(deleted?: { id: number; version: number }[]): Promise<void>;
}

const NOTHING_RESERVED: Reserved = { release: async () => undefined };

/**
 * Refuses (409, NetBox's text) the delete of the `targets` while another
 * service holds PROTECT references to them; 503 naming a service that could
 * not be asked. Runs before the delete's transaction opens; the targets are
 * read only when some service may protect the model. The services asked
 * reserve the targets (reservations.ts): until the owner's `release`, a new
 * reference to them there waits, so the delete and a new reference never
 * both succeed.
 */
export async function checkRemoteProtected(ctx: ServiceContext, model: ModelDef, targets: () => Promise<number[]>): Promise<Reserved> {
  // which services to ask, before reading what the delete would touch: most models nobody else protects
  const asked = await Promise.all(
    otherServices(ctx).map((service) =>
      protectedBy(ctx, service).then(
        (labels) => (labels.has(model.label) ? { service } : null),
        (err: Error) => ({ service, unknown: err }),
      ),
    ),
  );
  const toAsk = asked.filter((a): a is { service: string; unknown?: Error } => a !== null);
  if (!toAsk.length) return NOTHING_RESERVED;
  const ids = await targets();
  if (!ids.length) return NOTHING_RESERVED;
  const token = randomUUID();
  const reservedBy: string[] = [];
  const reserved: Reserved = {
    release: async (deleted = []) => {
      await Promise.all(
        reservedBy.map((service) =>
          ctx.refs.call(service, 'POST', '/internal/release', { model: model.label, token, deleted }).catch((err: Error) =>
            // its reservation lapses on its own; the delete's event tombstones the objects there
            ctx.log.warn({ service, model: model.label, err: err.message }, 'reservation not released'),
          ),
        ),
      );
    },
  };
  const answers = await Promise.allSettled(
    toAsk.map(async ({ service, unknown }) => {
      if (unknown) throw unknown;
      try {
        const answer = await ctx.refs.call<{ objects: string[] }>(service, 'POST', '/internal/dependents', { model: model.label, ids, token });
        reservedBy.push(service);
        return answer;
      } catch {
        throw new ServiceUnavailable(`Service ${service} is unavailable.`);
      }
    }),
  );
  const failed = answers.find((a): a is PromiseRejectedResult => a.status === 'rejected');
  const found = answers.flatMap((a) => (a.status === 'fulfilled' ? (a.value.objects ?? []) : []));
  if (failed || found.length) {
    await reserved.release();
    throw failed ? failed.reason : dependentsConflict(found);
  }
  return reserved;
}

/**
 * Resolves, before the write's transaction opens, the references a request
 * makes to other services' objects: the projection answers most; the misses
 * go to the owner in one call per target model and are kept in the
 * projection, so the write's own resolution (in the transaction) stays local.
 */
export async function warmReferences(ctx: ServiceContext, model: ModelDef, items: unknown[]): Promise<void> {
  const projected = projectedModels(ctx);
  const byTarget = new Map<string, unknown[]>();
  for (const item of items) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) continue;
    for (const [name, value] of Object.entries(item as Row)) {
      const field = Object.prototype.hasOwnProperty.call(model.fields, name) ? model.fields[name] : undefined;
      if (!field || (field.type !== 'fk' && field.type !== 'm2m') || !projected.has(field.to) || value === null || value === undefined) continue;
      const refs = field.type === 'm2m' ? (Array.isArray(value) ? value : []) : [value];
      byTarget.set(field.to, [...(byTarget.get(field.to) ?? []), ...refs]);
    }
  }
  // an owner that does not answer is a 503 naming it, before anything is written
  await Promise.all([...byTarget].map(([label, refs]) => resolveRefs(ctx, label, refs)));
  await warmGeneric(ctx, model, items);
}

/**
 * The objects a generic relation names (a contact assignment's site), fetched
 * into the projection when it does not hold them yet, so the answer shows
 * them. Not checked: NetBox does not check them either, and an owner that does
 * not answer leaves the object null until its events arrive.
 */
async function warmGeneric(ctx: ServiceContext, model: ModelDef, items: unknown[]): Promise<void> {
  const projected = projectedModels(ctx);
  const byTarget = new Map<string, number[]>();
  for (const field of Object.values(model.fields)) {
    if (field.type !== 'generic') continue;
    for (const item of items) {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) continue;
      const label = (item as Row)[field.typeField];
      // only what could be an id: an object's own toString (a client's `{"toString": "x"}`) is not called
      const given = (item as Row)[field.idField];
      const id = typeof given === 'number' || typeof given === 'string' ? Number(given) : NaN;
      if (typeof label !== 'string' || !projected.has(label) || !Number.isSafeInteger(id)) continue;
      byTarget.set(label, [...(byTarget.get(label) ?? []), id]);
    }
  }
  await Promise.all([...byTarget].map(([label, ids]) => resolveRefs(ctx, label, ids).catch(() => undefined)));
}
