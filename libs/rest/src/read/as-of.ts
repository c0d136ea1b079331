import type { NextFunction, Request, Response } from 'express';
import { currentContext, ValidationError } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { HISTORY_START_TABLE, HISTORY_SUFFIX, historyDdl, historyName, loadHistoryReads, type RunSql, type ServiceContext } from '../model';
import { projectionTable, projectedModels } from '../projections';

/*
 * `?as_of=<ISO 8601>` (docs/decisions/034-time-travel.md): every GET of the
 * service reads the inventory as it stood at that moment. The request's
 * context carries the moment; the database layer then reads every table
 * that keeps history from it (HistoryReads), so the read path itself is
 * unchanged: same SQL, same statements, same representation.
 */

export const AS_OF_PARAM = 'as_of';

/** ISO 8601: a date, or a date and time (seconds and fraction optional), with or without a zone (none: UTC). */
const ISO_8601 = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** A zone as both JavaScript and PostgreSQL read it: none is UTC, `+0200` and `+02` are `+02:00`. */
const zone = (z: string | undefined) => (!z ? 'Z' : /^z$/i.test(z) ? 'Z' : `${z.slice(0, 3)}:${z.slice(3).replace(':', '') || '00'}`);

const invalid = (message: string) => new ValidationError({ [AS_OF_PARAM]: [message] });

/**
 * The moment asked for, as PostgreSQL reads it (the client's precision kept:
 * a `last_updated` copied from an answer names that very version), checked
 * against now and history's start.
 */
export function parseAsOf(ctx: ServiceContext, value: string, name = AS_OF_PARAM): string {
  const m = ISO_8601.exec(value.trim());
  const text = m ? `${m[1]}T${m[2] ?? '00:00'}${zone(m[3])}` : '';
  const ms = m ? Date.parse(text.replace(/(\.\d{3})\d+/, '$1')) : NaN;
  const fail = (message: string) => new ValidationError({ [name]: [message] });
  if (Number.isNaN(ms)) throw fail('Enter a valid date/time in ISO 8601 format, e.g. 2024-05-01T12:00:00Z.');
  if (ms > Date.now()) throw fail('This time is in the future.');
  const history = ctx.db.history;
  if (!history) throw fail('This service keeps no history.');
  if (ms < Date.parse(history.start)) throw fail(`History starts at ${history.start}.`);
  return text;
}

/**
 * The service's `as_of` gate, before every route: a GET (or HEAD) with
 * `as_of` is read in the past; any other method with it is refused, since
 * nothing can be written in the past.
 */
export function asOfGate(ctx: ServiceContext) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const value = req.query[AS_OF_PARAM];
    if (value === undefined) return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') throw invalid('Writes cannot be made as of a past time.');
    if (typeof value !== 'string') throw invalid('Give one time.');
    const at = parseAsOf(ctx, value);
    const rc = currentContext();
    if (rc) rc.asOf = at;
    next();
  };
}

/** Runs `fn` with the service's reads as of `at` (null: now), restoring the request's own moment after. */
export async function readAt<T>(at: string | null, fn: () => Promise<T>): Promise<T> {
  const rc = currentContext();
  if (!rc) return fn();
  const before = rc.asOf;
  rc.asOf = at ?? undefined;
  try {
    return await fn();
  } finally {
    rc.asOf = before;
  }
}

const runOn = (ctx: ServiceContext): RunSql => (text) => ctx.db.query(sql`${raw(text)}`);

/**
 * At start: history for the projections made since (they are made at
 * start, not migrated), then what an `as_of` read needs to know (the tables
 * that keep history, history's start).
 */
export async function ensureHistory(ctx: ServiceContext): Promise<void> {
  const run = runOn(ctx);
  const existing = new Set((await run(`SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '${ctx.name}'`)).map((r) => String(r.relname)));
  const missing = [...projectedModels(ctx).keys()].map(projectionTable).filter((t) => existing.has(t) && !existing.has(historyName(t, HISTORY_SUFFIX)));
  if (existing.has(HISTORY_START_TABLE) && missing.length) {
    const statements = await historyDdl(run, ctx.name, missing);
    await ctx.db.query(sql`${raw(statements.join(';\n'))}`);
  }
  ctx.db.history = await loadHistoryReads(run, ctx.name);
}

/**
 * Retention (`HISTORY_RETENTION` days): versions that ended before the
 * cut-off are deleted and history's start moves to it, so no `as_of` can
 * ask for what is gone.
 */
export async function pruneHistory(ctx: ServiceContext, days: number): Promise<void> {
  const history = ctx.db.history;
  if (!history || days <= 0) return;
  const cutoff = new Date(Date.now() - days * 86_400_000).toISOString();
  await ctx.db.transaction(async (tx) => {
    await tx.query(sql`UPDATE ${raw(ctx.db.table(HISTORY_START_TABLE))} SET started = greatest(started, ${cutoff}::timestamptz)`);
    for (const table of history.tables) {
      await tx.query(sql`DELETE FROM ${raw(ctx.db.table(historyName(table, HISTORY_SUFFIX)))} WHERE upper("__valid") < ${cutoff}::timestamptz`);
    }
  });
  if (Date.parse(cutoff) > Date.parse(history.start)) history.start = cutoff;
}
