import type { Identity } from '@inventory/auth';
import type { Tx } from './db';
import type { ServiceContext } from './registry';

/** A plain database row or a representation being built. */
export type Row = Record<string, unknown>;

export interface WriteContext {
  tx: Tx;
  identity: Identity;
  requestId: string;
  service: ServiceContext;
  /** Lookups already done in this request (bulk writes name the same related objects again and again). */
  memo?: Map<string, Promise<unknown>>;
}

/** One object's rows before and after a committed write (null before a create, after a delete). */
export interface Change {
  before: Row | null;
  after: Row | null;
}
