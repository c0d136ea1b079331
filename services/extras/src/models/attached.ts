import { contentType, contentTypeDisplay } from '@inventory/refs';
import { resolveRefs, type WriteContext } from '@inventory/rest';

/**
 * What journal entries and image attachments share: they attach to an
 * object of any service by content type and id (a generic relation).
 */

/** NetBox's JournalingMixin is part of every NetBoxModel: the catalogue says which models those are. */
export const journaled = (label: string): boolean => !!contentType(label)?.features.journaling;

/** `DCIM | device`: a content type as Django prints it (NetBox's messages name it so). */
export function printedType(label: string): string {
  const ct = contentType(label);
  return ct ? contentTypeDisplay(ct) : label;
}

/**
 * Whether the object exists: true, false, or null when its owner could not
 * say (not deployed, not answering, not serving that model). The models
 * these attach to are projected here, so only a miss (an object made a
 * moment ago) asks the owner, whose answer is kept in the projection.
 */
export async function parentExists(wctx: WriteContext, label: string, id: unknown, projected: (label: string) => boolean): Promise<boolean | null> {
  try {
    const [hit] = await resolveRefs(wctx.service, label, [Number(id)], wctx.tx);
    return 'id' in hit;
  } catch (err) {
    // an owner that cannot be asked about an object of a projected model: not the client's error (503)
    if (projected(label)) throw err;
    return null;
  }
}
