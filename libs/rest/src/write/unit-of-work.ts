import type { Request, Response } from 'express';
import { currentContext } from '@inventory/core';
import type { Identity } from '@inventory/auth';
import { type Tx, type ModelDef, type ServiceContext, type Touched, type WriteContext, PENDING_HEADER, type WrittenEvent } from '../model';
import { claimKey, fingerprint, idempotencyKey, recordAnswer, recordApplied, type KeyRecord } from './idempotency';
import { recordChanges, type Recorded } from './changes';
import { retryingReserved } from '../projections';
import { baseUrl } from '../read';
import { lockTree } from './write';
import { importMarkOf, skipsReaders } from './import-mode';
import type { ImportMark } from '@inventory/events';

/** What a write handler applied, inside its transaction. */
export interface WriteResult {
  status: number;
  /** The objects the answer shows (none for a delete). */
  ids: number[];
  /** The answer is a list (a bulk write). */
  bulk: boolean;
  /** What the write created, updated and deleted: the pipeline records the changes and their events. */
  touched: Touched;
}

/** The answer to a write, built after the commit from what it applied. */
export interface Answer {
  headers: Record<string, string>;
  /** JSON text; '' for none (204). */
  body: string;
}

/** Builds the answer after the commit; `written` holds the objects as the write left them (absent on a replay). */
export type Respond = (applied: { status: number; ids: number[]; bulk: boolean }, written?: Recorded) => Promise<Answer>;

export function writeContext(ctx: ServiceContext, tx: Tx, identity: Identity, base = '', importing?: ImportMark): WriteContext {
  return { tx, identity, requestId: currentContext()?.requestId ?? '', service: ctx, memo: new Map(), base, ...(importing ? { importing } : {}) };
}

/**
 * Every REST write of a model goes through here: one transaction (run again
 * on a deadlock or serialization failure) in which the idempotency key is
 * claimed, the tree locked, the handler's work done, every touched object's
 * change recorded with its event in the outbox, and what was applied
 * recorded for the key; after the commit the hooks, then the answer (from
 * the representations the change records already built) and its record for
 * repeats of the key.
 */
export async function runWrite(
  ctx: ServiceContext,
  model: ModelDef,
  req: Request,
  res: Response,
  identity: Identity,
  work: (wctx: WriteContext) => Promise<WriteResult>,
  respond: Respond,
): Promise<void> {
  const key = idempotencyKey(req);
  const print = key ? fingerprint(req) : '';
  const importing = importMarkOf(req, identity);
  // run again while an object it names is reserved by another service's delete being decided (reservations.ts)
  const outcome = await retryingReserved(() =>
    ctx.db.transaction(async (tx): Promise<{ earlier: KeyRecord } | { applied: WriteResult; recorded: Recorded }> => {
      if (key) {
        const earlier = await claimKey(ctx, tx, identity, key, print);
        if (earlier) return { earlier };
      }
      // what the write records (its events, webhook payloads, the answer's representation) names the configured host
      const { applied, recorded } = await applyIn(ctx, model, writeContext(ctx, tx, identity, eventBase(ctx, req), importing), work);
      if (key) await recordApplied(ctx, tx, identity, key, applied);
      return { applied, recorded };
    }),
  );
  if ('earlier' in outcome) {
    res.setHeader('Idempotent-Replayed', 'true');
    return send(res, outcome.earlier.status, outcome.earlier.answer ?? (await respond(outcome.earlier)));
  }
  const { applied, recorded } = outcome;
  await committed(ctx, model, recorded);
  if (!skipsReaders(req, importing)) await awaitReaders(ctx, res, recorded.events);
  // the recorded representations name the events' host; the answer names the one the client asked for
  const answer = rebase(await respond(applied, recorded), eventBase(ctx, req), baseUrl(req, ctx.settings.publicUrl));
  if (key) await recordAnswer(ctx, identity, key, answer);
  send(res, applied.status, answer);
}

/** The base of the URLs a write records: the configured one, else (no gateway known) the request's. */
function eventBase(ctx: ServiceContext, req: Request): string {
  return ctx.settings.eventBase ?? baseUrl(req, ctx.settings.publicUrl);
}

/** An answer with every URL on `from` (a JSON string starting with it, the Location header) on `to` instead. */
function rebase(answer: Answer, from: string, to: string): Answer {
  if (from === to) return answer;
  const headers = { ...answer.headers };
  if (headers.Location?.startsWith(`${from}/`)) headers.Location = `${to}${headers.Location.slice(from.length)}`;
  return { headers, body: answer.body.split(`"${from}/`).join(`"${to}/`) };
}

/**
 * Before a write is answered: waits until every service that shows its
 * objects (projections, the change log) has applied its events, or the
 * bound passed; those that had not are named in `X-Consistency-Pending`.
 */
export async function awaitReaders(ctx: ServiceContext, res: Response, events: WrittenEvent[]): Promise<void> {
  const pending = (await ctx.consistency?.settle(events)) ?? [];
  if (pending.length) res.setHeader(PENDING_HEADER, pending.join(', '));
}

/**
 * A write that no REST request starts (token provisioning, the first
 * superuser, custom-field data rewrites, delete rules applied from another
 * service's event): the same pipeline as `runWrite`, without an idempotency
 * key or an answer. Resolves after the commit and the service's
 * afterCommit, with what `work` returned and the changes recorded; a caller
 * that answers somebody waits for `recorded.events` itself (`ctx.consistency`).
 */
export async function runChange<T extends { touched: Touched }>(
  ctx: ServiceContext,
  model: ModelDef,
  identity: Identity,
  work: (wctx: WriteContext) => Promise<T>,
  base = '',
): Promise<{ applied: T; recorded: Recorded }> {
  const outcome = await retryingReserved(() => ctx.db.transaction((tx) => applyIn(ctx, model, writeContext(ctx, tx, identity, base), work)));
  await committed(ctx, model, outcome.recorded);
  return outcome;
}

/** The service instance's own work after a commit that changed something. */
async function committed(ctx: ServiceContext, model: ModelDef, recorded: Recorded): Promise<void> {
  if (ctx.afterCommit && recorded.changes.length) await ctx.afterCommit(ctx, model, recorded.changes);
}

/** The pipeline inside the transaction: the tree lock, the work, then each touched object's change and event. */
async function applyIn<T extends { touched: Touched }>(
  ctx: ServiceContext,
  model: ModelDef,
  wctx: WriteContext,
  work: (wctx: WriteContext) => Promise<T>,
): Promise<{ applied: T; recorded: Recorded }> {
  if (model.tree) await lockTree(wctx.tx, model);
  const applied = await work(wctx);
  if (model.hooks.afterWrite) await model.hooks.afterWrite(applied.touched, wctx);
  const recorded = await recordChanges(ctx, model, wctx, applied.touched);
  return { applied, recorded };
}

function send(res: Response, status: number, answer: Answer): void {
  for (const [k, v] of Object.entries(answer.headers)) res.setHeader(k, v);
  res.statusCode = status;
  if (answer.body === '') {
    res.end();
    return;
  }
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(answer.body));
  res.end(answer.body);
}
