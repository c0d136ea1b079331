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
