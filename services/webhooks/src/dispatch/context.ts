/**
 * NetBox's webhook context (spec §D.5): what URL, header and body templates
 * see, and the default body. Built from one change event of the outbox.
 */
import type { ChangeEvent } from '@inventory/events';

export interface WebhookContext {
  /** `created`, `updated` or `deleted`. */
  event: string;
  /** Python's ISO format in UTC: `2024-05-06T12:43:46.123000+00:00`. */
  timestamp: string;
  /** The lower-case model name: `site`, `ipaddress` (not `dcim.site`). */
  model: string;
  username: string;
  request_id: string;
  /** The object's complete REST representation (before the change for a delete). */
  data: unknown;
  snapshots: { prechange: unknown; postchange: unknown };
}

/** The context of `event`, keys in NetBox's order (the default body keeps it). */
export function webhookContext(event: ChangeEvent): WebhookContext {
  return {
    event: event.event,
    timestamp: pythonIsoTimestamp(event.timestamp),
    model: modelName(event.model),
    username: event.username,
    request_id: event.request_id,
    data: event.data,
    snapshots: { prechange: event.snapshots?.prechange ?? null, postchange: event.snapshots?.postchange ?? null },
  };
}

/** `dcim.site` → `site`: NetBox's `model_name`. */
export function modelName(model: string): string {
  return model.slice(model.lastIndexOf('.') + 1).toLowerCase();
}

/**
 * An ISO 8601 instant as Python's `datetime.isoformat()` of an aware UTC
 * datetime prints it: microseconds and `+00:00` (`2024-05-06T12:43:46.123000+00:00`).
 */
export function pythonIsoTimestamp(iso: string): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(?:Z|[+-]00:?00)$/i.exec(iso);
  if (m) return `${m[1]}.${(m[2] ?? '').padEnd(6, '0').slice(0, 6)}+00:00`;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return pythonIsoTimestamp(date.toISOString());
}
