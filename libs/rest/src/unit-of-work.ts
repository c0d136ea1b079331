import type { Request, Response } from 'express';
import { currentContext } from '@inventory/core';
import type { Identity } from '@inventory/auth';
import type { Tx } from './db';
import { claimKey, fingerprint, idempotencyKey, recordAnswer, recordApplied, type KeyRecord } from './idempotency';
import type { ModelDef } from './model';
import type { ServiceContext } from './registry';
import type { Change, WriteContext } from './types';
import { lockTree } from './write';

/** What a write handler applied, inside its transaction. */
export interface WriteResult {
  status: number;
  /** The objects the answer shows (none for a delete). */
  ids: number[];
  /** The answer is a list (a bulk write). */
  bulk: boolean;
  changes: Change[];
}

/** The answer to a write, built after the commit from what it applied. */
export interface Answer {
  headers: Record<string, string>;
  /** JSON text; '' for none (204). */
  body: string;
}

export type Respond = (applied: { status: number; ids: number[]; bulk: boolean }) => Promise<Answer>;

export function writeContext(ctx: ServiceContext, tx: Tx, identity: Identity): WriteContext {
  return { tx, identity, requestId: currentContext()?.requestId ?? '', service: ctx, memo: new Map() };
}

/**
 * Every REST write of a model goes through here: one transaction (run again
 * on a deadlock or serialization failure) in which the idempotency key is
 * claimed and what was applied recorded; after the commit the hooks, then
 * the answer, built from the written objects (outside the transaction, so a
 * write never holds one connection while waiting for another) and recorded
 * for repeats of the key.
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
  const outcome = await ctx.db.transaction(async (tx): Promise<{ earlier: KeyRecord } | { applied: WriteResult }> => {
    if (key) {
      const earlier = await claimKey(ctx, tx, identity, key, print);
      if (earlier) return { earlier };
    }
    if (model.tree) await lockTree(tx, model);
    const applied = await work(writeContext(ctx, tx, identity));
    if (key) await recordApplied(ctx, tx, identity, key, applied);
    return { applied };
  });
  if ('earlier' in outcome) {
    res.setHeader('Idempotent-Replayed', 'true');
    return send(res, outcome.earlier.status, outcome.earlier.answer ?? (await respond(outcome.earlier)));
  }
  const { applied } = outcome;
  if (model.hooks.afterCommit && applied.changes.length) await model.hooks.afterCommit(ctx, applied.changes);
  const answer = await respond(applied);
  if (key) await recordAnswer(ctx, identity, key, answer);
  send(res, applied.status, answer);
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
