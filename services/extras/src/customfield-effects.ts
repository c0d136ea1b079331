import { contentType } from '@inventory/refs';
import { serviceIdentity } from '@inventory/auth';
import { rewriteCustomFieldData, type Change, type CustomFieldDataOp, type ServiceContext } from '@inventory/rest';

interface Op extends CustomFieldDataOp {
  content_types: string[];
}

/** What a custom field change means for stored values (NetBox: defaults written, keys removed or renamed). */
export function customFieldOps(c: Change): Op[] {
  const before = c.before;
  const after = c.after;
  const types = (r: typeof before) => (r ? ((r.content_types as string[]) ?? []) : []);
  const ops: Op[] = [];
  if (!after && before) return [{ op: 'remove', name: String(before.name), content_types: types(before) }];
  if (!after) return [];
  const oldTypes = new Set(types(before));
  const newTypes = types(after);
  if (before && before.name !== after.name) {
    ops.push({ op: 'rename', name: String(before.name), new_name: String(after.name), content_types: newTypes.filter((t) => oldTypes.has(t)) });
  }
  const removed = [...oldTypes].filter((t) => !newTypes.includes(t));
  if (removed.length) ops.push({ op: 'remove', name: String(before!.name), content_types: removed });
  const added = newTypes.filter((t) => !oldTypes.has(t));
  if (added.length) ops.push({ op: 'populate', name: String(after.name), default: after.default ?? null, content_types: added });
  return ops.filter((o) => o.content_types.length);
}

/**
 * Applies the ops in the services that own the content types, each through
 * its write pipeline (every rewritten object has its change event). Runs
 * after the custom field's own commit; a service that cannot be reached is
 * logged (the ops are idempotent: consuming the custom field's events, as
 * the cross-service projections will, can replay them durably).
 */
export async function applyCustomFieldChanges(ctx: ServiceContext, changes: Change[]): Promise<void> {
  for (const op of changes.flatMap(customFieldOps)) {
    const byService = new Map<string, string[]>();
    for (const t of op.content_types) {
      const owner = contentType(t)?.service;
      if (owner) byService.set(owner, [...(byService.get(owner) ?? []), t]);
    }
    await Promise.all(
      [...byService].map(async ([service, types]) => {
        const body = { ...op, content_types: types };
        try {
          if (service === ctx.name) {
            for (const m of ctx.models.values()) {
              if (m.customFields && types.includes(m.label)) await rewriteCustomFieldData(ctx, m, op, serviceIdentity(ctx.name));
            }
          } else if (ctx.refs.has(service)) await ctx.refs.call(service, 'POST', '/internal/custom-fields/data', body);
        } catch (err) {
          ctx.log.warn({ service, op: op.op, field: op.name, err: (err as Error).message }, 'custom field data not updated');
        }
      }),
    );
  }
}
