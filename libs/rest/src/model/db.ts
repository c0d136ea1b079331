import { createHash } from 'node:crypto';
import pg from 'pg';
import { currentContext, safeUrl, waitFor, type Logger } from '@inventory/core';
import { type Sql, Prepared, render, quoteIdent } from '@inventory/filtering';
import type { HistoryReads } from './history-reads';

// Timestamps keep their microseconds (JS Dates would drop them); bigint counts and ids become numbers.
pg.types.setTypeParser(1184, (v) => v); // timestamptz
pg.types.setTypeParser(1114, (v) => v); // timestamp
pg.types.setTypeParser(1082, (v) => v); // date
pg.types.setTypeParser(20, (v) => Number(v)); // int8
pg.types.setTypeParser(1700, (v) => Number(v)); // numeric

/**
 * deadlock_detected, serialization_failure: the transaction lost a race and may simply run again;
 * feature_not_supported is what a prepared statement reading `t.*` raises once a migration changed
 * the table under it ("cached plan must not change result type"): run again, it is no longer named.
 */
const RETRYABLE = new Set(['40P01', '40001', '0A000']);
/** Runs of one statement text before it is prepared (named) on each connection: its plan is kept from then on. */
const NAME_AFTER_RUNS = 3;
/** Texts prepared at most, per service: the hot ones (a list page, a representation, the outbox); others stay unnamed. */
const MAX_NAMED = 128;
/** Texts read as of a past moment prepared at most, per service (each moment's text is its own). */
const MAX_NAMED_PAST = 32;
/** Texts counted at most before the count starts again (many one-off texts: filters, bulk VALUES lists). */
const MAX_COUNTED = 2000;
const TRANSACTION_RETRIES = 3;

export interface Queryable {
  query(statement: Sql): Promise<Record<string, unknown>[]>;
}

/** A prepared statement's name: its text's (so the same text has the same name on every connection). */
function statementName(text: string): string {
  return `p_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
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
  /** How often each recent statement text ran, and the texts run by name (see `nameFor`). */
  private readonly runs = new Map<string, number>();
  private readonly named = new Set<string>();
  private readonly namedPast = new Set<string>();
  /** The tables read in the past by an `as_of` request (history.ts); null before start or without history. */
  history: HistoryReads | null = null;

  constructor(
    private readonly url: string,
    readonly schema: string,
    private readonly max = 10,
  ) {
    // named statements (the hot ones: nameFor) keep one generic plan. The setting is the connection's, so a
    // statement with parameters that is not named gets a generic plan too (PostgreSQL reads plan_cache_mode for
    // the unnamed statement as well; seen with auto_explain): a text whose plan must fit its values puts them
    // in its text (as `projectedId` does), not in parameters
    this.pool = this.newPool(max, '-c plan_cache_mode=force_generic_plan');
  }

  private newPool(max: number, options: string): pg.Pool {
    const pool = new pg.Pool({ connectionString: this.url, max, options: `-c search_path=${this.schema},public -c timezone=UTC ${options}` });
    pool.on('error', () => {
      /* idle client errors surface on the next query */
    });
    return pool;
  }

  async run(client: pg.Pool | pg.PoolClient, statement: Sql): Promise<Record<string, unknown>[]> {
    const ctx = currentContext();
    if (ctx) ctx.queries++;
    const { text, values } = render(statement);
    // a request read as of a past moment reads every table from its history (read/as-of.ts), the moment a
    // literal in the text (history-reads.ts): a plan kept for it is that moment's, named on a budget of its own
    if (ctx?.asOf && this.history) {
      const past = this.history.rewrite(text, ctx.asOf);
      if (past !== text) return this.runNamed(client, past, values, this.namedPast, MAX_NAMED_PAST);
    }
    if (statement instanceof Prepared) return this.runPrepared(client, statement, text, values);
    return this.runNamed(client, text, values, this.named, MAX_NAMED);
  }

  private async runNamed(client: pg.Pool | pg.PoolClient, text: string, values: unknown[], named: Set<string>, max: number): Promise<Record<string, unknown>[]> {
    const name = this.nameFor(text, named, max);
    if (!name) return (await client.query(text, values)).rows;
    try {
      return (await client.query({ name, text, values })).rows;
    } catch (err) {
      // the table changed under the prepared plan (a migration): unnamed from now on; outside a transaction, again at once
      if ((err as { code?: string }).code !== '0A000') throw err;
      named.delete(text);
      if (!(client instanceof pg.Pool)) throw err;
      return (await client.query(text, values)).rows;
    }
  }

  /**
   * A name for a statement text that runs often: PostgreSQL then parses it
   * once per connection and, after a few runs, keeps a plan for it (planning
   * the representation's statement, with a count subquery per counted
   * relation, cost five times its execution). Bounded: at most MAX_NAMED
   * texts per service are named, so the prepared statements a connection
   * holds cannot grow with the variety of filters. Texts read as of a past
   * moment have their own budget (`namedPast`): a client asking many moments
   * cannot take the current reads' names.
   */
  private nameFor(text: string, named: Set<string>, max: number): string | null {
    if (named.has(text)) return statementName(text);
    if (named.size >= max) return null;
    const n = (this.runs.get(text) ?? 0) + 1;
    if (n < NAME_AFTER_RUNS) {
      if (this.runs.size >= MAX_COUNTED) this.runs.clear();
      this.runs.set(text, n);
      return null;
    }
    this.runs.delete(text);
    named.add(text);
    return statementName(text);
  }

  /**
   * A statement marked prepared: a generic one is named at once (its plan
   * kept: the connections force generic plans); one marked not generic is
   * never named, so it is parsed at every run (its plan is generic all the
   * same: see the constructor).
   */
  private async runPrepared(client: pg.Pool | pg.PoolClient, statement: Prepared, text: string, values: unknown[]): Promise<Record<string, unknown>[]> {
    if (!statement.generic) return (await client.query(text, values)).rows;
    return (await client.query({ name: statementName(text), text, values })).rows;
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
    return [stats('main', this.pool)];
  }

  async close(): Promise<void> {
    await this.pool.end();
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
