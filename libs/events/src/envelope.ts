import { randomUUID } from 'node:crypto';

/** `created`, `updated`, `deleted`: NetBox's webhook `event` values. */
export type EventKind = 'created' | 'updated' | 'deleted';

/**
 * One change of one object, as it is stored in the outbox and published:
 * Debezium's outbox shape (aggregate type, aggregate id, event type,
 * payload) with NetBox's webhook context (§D.1–D.4) as the payload.
 */
export interface ChangeEvent {
  /** UUID; also the AMQP message id (consumers de-duplicate by it). */
  id: string;
  event: EventKind;
  /** `<app>.<model>` */
  model: string;
  object_id: number;
  /** The object's version after the change (before it, for a delete). */
  version: number;
  /** ISO 8601 UTC. */
  timestamp: string;
  username: string;
  request_id: string;
  /** The object's complete REST representation (prechange for a delete). */
  data: unknown;
  snapshots: { prechange: unknown; postchange: unknown };
  /** What another service keeps to refer to the object (its projection of it); absent on events of older releases. */
  reference?: Reference;
  /** Present when an import wrote the change (X-Inventory-Import): projections apply it, the change log and webhooks only when asked. */
  import?: ImportMark;
}

/** An import's write: whether the change log records it and webhooks fire for it (both off unless the import asks). */
export interface ImportMark {
  changelog: boolean;
  webhooks: boolean;
}

/**
 * The object as a referring service keeps it: the nested representation the
 * owner renders (urls relative to the API root, `/api/...`), the keys of the
 * owner's default ordering (to sort by the reference), and for tree models
 * the path of ids from the root to the object (tree filters at any depth).
 */
export interface Reference {
  nested: Record<string, unknown> | null;
  sort: string[];
  path?: number[];
}

export const EVENTS_EXCHANGE = 'inventory.events';

/** `<app>.<model>.<event>`, e.g. `tenancy.tenant.created`. */
export function routingKey(e: Pick<ChangeEvent, 'model' | 'event'>): string {
  return `${e.model}.${e.event}`;
}

export function newEventId(): string {
  return randomUUID();
}

/**
 * A pack: a message whose body is a JSON array of events of one routing key,
 * consecutive in their owner's outbox (a bulk write's thousand creates),
 * published as one message so that the broker and every consumer handle one
 * message instead of a thousand. This header holds the number of events in
 * it. A run of one event is published as the event itself.
 */
export const PACK_HEADER = 'x-inventory-events';

/**
 * The events of a message body: one event (an object) or a pack (an array
 * of them); null when it is neither (it can never be applied).
 */
export function eventsOf(body: Buffer): { events: ChangeEvent[]; pack: boolean } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  const pack = Array.isArray(parsed);
  const list = pack ? (parsed as unknown[]) : [parsed];
  if (!list.length || !list.every(isEvent)) return null;
  return { events: list as ChangeEvent[], pack };
}

function isEvent(e: unknown): boolean {
  const o = e as ChangeEvent | null;
  return !!o && typeof o === 'object' && typeof o.model === 'string' && typeof o.event === 'string';
}
