import type { Request } from 'express';
import { PermissionDenied } from '@inventory/core';
import type { Identity } from '@inventory/auth';
import type { ImportMark } from '@inventory/events';
import { sql, raw } from '@inventory/filtering';
import type { ModelDef, Row, ServiceContext, Tx } from '../model';
import type { Prepared } from './write';

/**
 * Imports (issue 25, decision 031): a superuser's write that says
 * `X-Inventory-Import: 1` may give each created object its `id` (NetBox's
 * own, so every URL and external reference keeps working); its events are
 * marked, so projections apply them while the change log and webhooks skip
 * them unless the header asks for them (`X-Inventory-Import: changelog,webhooks`).
 * Everywhere else `id` stays read-only, as in NetBox.
 */
export const IMPORT_HEADER = 'x-inventory-import';

/** The request's import mark (none for an ordinary write); a non-superuser asking for one is refused. */
export function importMarkOf(req: Request, identity: Identity): ImportMark | undefined {
  const value = req.get(IMPORT_HEADER);
  if (value === undefined || value.trim() === '' || value.trim() === '0') return undefined;
  if (!identity.user?.is_superuser) throw new PermissionDenied('Only a superuser may import (X-Inventory-Import).');
  const words = new Set(value.split(',').map((w) => w.trim().toLowerCase()));
  return { changelog: words.has('changelog'), webhooks: words.has('webhooks') };
}

/**
 * Whether an import's write is answered without waiting for its readers
 * (decision 025): `X-Inventory-Import: 1,nowait`. The importer asks it for
 * every page of a model but the last wave, whose wait then covers the pages
 * before it (their events were relayed before its own, and each reader
 * applies its queue in order); only a superuser's import may ask.
 */
export function skipsReaders(req: Request, importing: ImportMark | undefined): boolean {
  if (!importing) return false;
  return (req.get(IMPORT_HEADER) ?? '').split(',').some((w) => w.trim().toLowerCase() === 'nowait');
}

/** The id an import gives an item: absent (the sequence's), or an error message for a bad one. */
export function keptIdOf(item: unknown): number | undefined | { error: string } {
  if (!item || typeof item !== 'object' || Array.isArray(item) || !('id' in item)) return undefined;
  const id = (item as Row).id;
  if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) return id;
  if (typeof id === 'string' && /^\d{1,15}$/.test(id) && Number(id) > 0) return Number(id);
  return { error: 'A valid integer is required.' };
}

/** Per item, the message for a kept id that an object already has (or an earlier item of the same write). */
export async function takenIds(ctx: ServiceContext, model: ModelDef, ids: (number | undefined)[], tx: Tx): Promise<(string | null)[]> {
  const given = ids.filter((id): id is number => id !== undefined);
  if (!given.length) return ids.map(() => null);
  const rows = await tx.query(sql`SELECT id FROM ${raw(ctx.db.table(model.table))} WHERE id = ANY(${given}::bigint[])`);
  const taken = new Set(rows.map((r) => Number(r.id)));
  const message = `${model.verboseName} with this id already exists.`;
  return ids.map((id) => {
    if (id === undefined) return null;
    if (taken.has(id)) return message;
    taken.add(id);
    return null;
  });
}

/**
 * Moves the table's id sequence past its largest id, so that the ordinary
 * creates after an import never draw an id the import gave. setval is not
 * rolled back with the transaction: a rolled-back import leaves a gap, as
 * any rolled-back create does.
 */
export async function advanceSequence(ctx: ServiceContext, model: ModelDef, tx: Tx): Promise<void> {
  const table = ctx.db.table(model.table);
  await tx.query(
    sql`SELECT setval(s, GREATEST(m, (SELECT last_value FROM pg_sequences WHERE format('%I.%I', schemaname, sequencename)::regclass = s::regclass)))
        FROM (SELECT pg_get_serial_sequence(${table}, 'id') AS s, (SELECT max(id) FROM ${raw(table)}) AS m) x WHERE s IS NOT NULL AND m IS NOT NULL`,
  );
}

/**
 * An imported object keeps its `created` (a journal entry shows it in its
 * display; a change log reader sorts by it); an unparsable one is ignored
 * (the import's time stands). `last_updated` is the import's own time.
 */
export function keepCreated(p: Prepared, item: unknown): void {
  const created = (item as Row | null)?.created;
  if (typeof created === 'string' && !Number.isNaN(Date.parse(created))) p.columns.created = created;
}
