import { createHash } from 'node:crypto';
import pg from 'pg';
import { currentContext, safeUrl, waitFor, type Logger } from '@inventory/core';
import { type Sql, Prepared, render, quoteIdent } from '@inventory/filtering';

// Timestamps keep their microseconds (JS Dates would drop them); bigint counts and ids become numbers.
pg.types.setTypeParser(1184, (v) => v); // timestamptz
pg.types.setTypeParser(1114, (v) => v); // timestamp
pg.types.setTypeParser(1082, (v) => v); // date
pg.types.setTypeParser(20, (v) => Number(v)); // int8
pg.types.setTypeParser(1700, (v) => Number(v)); // numeric

/** deadlock_detected, serialization_failure: the transaction lost a race and may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const TRANSACTION_RETRIES = 3;

export interface Queryable {
  query(statement: Sql): Promise<Record<string, unknown>[]>;
}

/** A transaction: a checked-out client. */
export class Tx implements Queryable {
  constructor(
    private readonly client: pg.PoolClient,
    private readonly db: Db,
  ) {}

  query(statement: Sql): Promise<Record<string, unknown>[]> {
    return this.db.run(this.client, statement);
  }
}

/**
 * Thin layer over a pg pool. Every statement is counted in the request
 * context, so tests can prove a list page costs a fixed number of queries.
 */
export class Db implements Queryable {
  readonly pool: pg.Pool;
  private genericPool?: pg.Pool;

  constructor(
    private readonly url: string,
    readonly schema: string,
    private readonly max = 10,
  ) {
    this.pool = this.newPool(max);
  }

  private newPool(max: number, options = ''): pg.Pool {
    const pool = new pg.Pool({ connectionString: this.url, max, options: `-c search_path=${this.schema},public -c timezone=UTC ${options}`.trim() });
    pool.on('error', () => {
      /* idle client errors surface on the next query */
    });
    return pool;
  }

  async run(client: pg.Pool | pg.PoolClient, statement: Sql): Promise<Record<string, unknown>[]> {
    const ctx = currentContext();
    if (ctx) ctx.queries++;
    const { text, values } = render(statement);
    if (statement instanceof Prepared) return this.runPrepared(client, statement, text, values);
    const res = await client.query(text, values);
    return res.rows;
  }

  /**
   * A named prepared statement (named by its text, so each connection parses
   * it once). A generic one outside a transaction runs on the generic-plan
   * pool; inside one, with `plan_cache_mode` set and reset around it on the
   * transaction's connection (a SET in a transaction that fails is undone by
   * its rollback).
   */
  private async runPrepared(client: pg.Pool | pg.PoolClient, statement: Prepared, text: string, values: unknown[]): Promise<Record<string, unknown>[]> {
    const query = { name: `p_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`, text, values };
    if (!statement.generic) return (await client.query(query)).rows;
    if (client instanceof pg.Pool) return (await this.genericPlans().query(query)).rows;
    await client.query('SET plan_cache_mode = force_generic_plan');
    try {
      return (await client.query(query)).rows;
    } finally {
      await client.query('RESET plan_cache_mode').catch(() => undefined);
    }
  }

  /** Connections whose prepared statements always run a generic plan (made on first use: few services have such statements). */
  private genericPlans(): pg.Pool {
    this.genericPool ??= this.newPool(Math.max(2, Math.ceil(this.max / 4)), '-c plan_cache_mode=force_generic_plan');
    return this.genericPool;
  }

  query(statement: Sql): Promise<Record<string, unknown>[]> {
    return this.run(this.pool, statement);
  }

  /**
   * Runs `fn` in a transaction. A deadlock or serialization failure (a
   * concurrent writer, not the request) runs the whole of `fn` again, a
   * bounded number of times; after that the error reaches the error handler,
   * which answers 409.
   */
  async transaction<T>(fn: (tx: Tx) => Promise<T>, retries = TRANSACTION_RETRIES): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(fn);
      } catch (err) {
        if (attempt >= retries || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * (attempt + 1)));
      }
    }
  }

  private async once<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(new Tx(client, this));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  table(name: string): string {
    return `${quoteIdent(this.schema)}.${quoteIdent(name)}`;
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  /** Connections of each pool (`main`, and `generic` once made): open, idle, and callers waiting for one. */
  poolStats(): { pool: string; total: number; idle: number; waiting: number }[] {
    const stats = (pool: string, p: pg.Pool) => ({ pool, total: p.totalCount, idle: p.idleCount, waiting: p.waitingCount });
    return [stats('main', this.pool), ...(this.genericPool ? [stats('generic', this.genericPool)] : [])];
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.genericPool?.end()]);
  }
}

/** Resolves once PostgreSQL at `url` accepts a connection and a query, retrying with backoff (at start: a database that is not up yet is waited for). */
export function waitForDatabase(url: string, log: Logger): Promise<void> {
  return waitFor('PostgreSQL', safeUrl(url), async () => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
    } finally {
      await client.end().catch(() => undefined);
    }
  }, log);
}
