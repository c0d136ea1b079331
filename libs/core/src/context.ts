import { AsyncLocalStorage } from 'node:async_hooks';

/** Per-request state that deep code (logging, query counting) needs without threading it through calls. */
export interface RequestContext {
  requestId: string;
  queries: number;
  /** A read as of this moment (ISO 8601, `?as_of=`): the database layer reads every table from its history. */
  asOf?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}
