import type { Identity } from '@inventory/auth';
import type { Tx } from './db';
import type { ServiceContext } from './registry';
import type { ModelDef } from './model';

/** A plain database row or a representation being built. */
export type Row = Record<string, unknown>;

export interface WriteContext {
  tx: Tx;
  identity: Identity;
  requestId: string;
  service: ServiceContext;
  /** Lookups already done in this request (bulk writes name the same related objects again and again). */
  memo?: Map<string, Promise<unknown>>;
  /** Absolute base of the API for this request (the `url`s inside event data). */
  base?: string;
  /** Representations of objects as they were before this write changed them, by `<label>:<id>` (see `capture`). */
  prechange?: Map<string, Row>;
  /** Objects the write changed besides those its handler names: moved tree descendants, cascades. */
  also?: { model: ModelDef; touched: Touched }[];
}

/** One object's rows before and after a committed write (null before a create, after a delete). */
export interface Change {
  before: Row | null;
  after: Row | null;
}

/** What a write touched, as its handler reports it to the pipeline. */
export interface Touched {
  created?: number[];
  /** Rows as they were before the update (locked by the handler). */
  updated?: Row[];
  /** Rows as they were before the delete. */
  deleted?: Row[];
}
