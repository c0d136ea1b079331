import { newEventId, type ChangeEvent } from '@inventory/events';

/** What the events tests share. */
export const silent = { info: () => undefined, warn: () => undefined };

/** A change event of `model` #`objectId`, as a write of it would record. */
export function sampleEvent(model: string, objectId: number, kind: ChangeEvent['event'] = 'created'): ChangeEvent {
  return {
    id: newEventId(),
    event: kind,
    model,
    object_id: objectId,
    version: 1,
    timestamp: new Date().toISOString(),
    username: 'admin',
    request_id: 'req-1',
    data: { id: objectId },
    snapshots: { prechange: null, postchange: { id: objectId } },
  };
}

/** Polls until `check` holds, or fails after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}
