import type { QueryInterface } from 'sequelize';
import { quoteIdent } from '@inventory/filtering';
import { TAGGED_ITEM_TABLE, runStatements, type Migration } from './schema';
import { HISTORY_SUFFIX, HistoryReads, asOfFunction, historyName } from './history-reads';

/*
 * Every version of every row, kept by PostgreSQL itself (docs/decisions/034):
 * beside each table `t` a table `t__history` with the validity period of each
 * version (`__valid`, first) and the row's columns, all nullable (a column
 * added later has no past values). Statement-level triggers with transition
 * tables keep it in the write's own transaction, set-based (one statement per
 * write statement, whatever its row count); `t__as_of(T)`, an inlinable SQL
 * function, is the rows valid at T in the table's own shape plus `__valid`.
 */

export { HISTORY_SUFFIX, asOfFunction, historyName, HistoryReads } from './history-reads';
/** When the kept history starts: the migration's time, later retention's cut-off (one row). */
export const HISTORY_START_TABLE = '_history_start';
/**
 * Whether a table keeps history: the models' tables, their link tables and
 * tagged items, every one with an `id`; not the service's own machinery
 * (outbox, idempotency keys, processed events, reservations: `_`-prefixed),
 * nor history itself. Projections (`_proj_*`) get theirs at start, as they
 * are made (projections.ts).
 */
export function keepsHistory(table: string): boolean {
  if (table.endsWith(HISTORY_SUFFIX)) return false;
  return !table.startsWith('_') || table === TAGGED_ITEM_TABLE || table.startsWith('_proj_');
}

export interface Column {
  name: string;
  type: string;
}

/**
 * The DDL that keeps history for one table, from its columns and the column
 * lists of its btree indexes (mirrored, not unique, so a read as of T plans
 * as a current one: a count by `site_id` seeks, it does not scan the
 * versions valid at T). Idempotent: run again after columns change.
 */
export function historyStatements(schema: string, table: string, columns: Column[], indexed: string[][] = []): string[] {
  const s = quoteIdent(schema);
  const t = `${s}.${quoteIdent(table)}`;
  const h = `${s}.${quoteIdent(historyName(table, HISTORY_SUFFIX))}`;
  const fn = `${s}.${quoteIdent(historyName(table, '__history_record'))}`;
  const names = columns.map((c) => quoteIdent(c.name)).join(', ');
  const idx = (suffix: string) => quoteIdent(historyName(table, suffix));
  return [
    `CREATE TABLE IF NOT EXISTS ${h} ("__valid" tstzrange NOT NULL, ${columns.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ')})`,
    // the rows of an object (detail reads), its open version (the triggers' lookups: one entry per
    // object, where the index on `id` holds every version), and the versions valid at a time (lists)
    `CREATE INDEX IF NOT EXISTS ${idx('__history_id_idx')} ON ${h} ("id")`,
    openVersionsIndex(schema, table),
    `CREATE INDEX IF NOT EXISTS ${idx('__history_valid_idx')} ON ${h} USING gist ("__valid")`,
    ...indexed.map((cols) => `CREATE INDEX IF NOT EXISTS ${idx(`__history_${cols.join('_')}_idx`)} ON ${h} (${cols.map(quoteIdent).join(', ')})`),
    recordFunction(schema, table, columns),
    `CREATE OR REPLACE TRIGGER ${idx('__history_ins')} AFTER INSERT ON ${t} REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    `CREATE OR REPLACE TRIGGER ${idx('__history_upd')} AFTER UPDATE ON ${t} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    `CREATE OR REPLACE TRIGGER ${idx('__history_del')} AFTER DELETE ON ${t} REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    // inlined by the planner: a read's conditions on `id` reach the history's index
    `CREATE OR REPLACE FUNCTION ${s}.${quoteIdent(asOfFunction(table))}(timestamptz) RETURNS SETOF ${h} LANGUAGE sql STABLE AS $fn$ SELECT * FROM ${h} WHERE "__valid" @> $1 $fn$`,
    // rows present before history was kept: valid from now on (no-op for those already kept)
    `INSERT INTO ${h} ("__valid", ${names}) SELECT tstzrange(now(), NULL), ${names} FROM ${t} c
      WHERE NOT EXISTS (SELECT 1 FROM ${h} k WHERE k."id" = c."id" AND upper_inf(k."__valid"))`,
  ];
}

/** The index of each object's open version: what the triggers seek (the `id` index holds every version). */
function openVersionsIndex(schema: string, table: string): string {
  const h = `${quoteIdent(schema)}.${quoteIdent(historyName(table, HISTORY_SUFFIX))}`;
  return `CREATE INDEX IF NOT EXISTS ${quoteIdent(historyName(table, '__history_open'))} ON ${h} ("id") WHERE upper_inf("__valid")`;
}

/** The trigger function writing a table's history (statement-level, from the transition tables). */
function recordFunction(schema: string, table: string, columns: Column[]): string {
  const h = `${quoteIdent(schema)}.${quoteIdent(historyName(table, HISTORY_SUFFIX))}`;
  const fn = `${quoteIdent(schema)}.${quoteIdent(historyName(table, '__history_record'))}`;
  const names = columns.map((c) => quoteIdent(c.name)).join(', ');
  // a version starts at its transaction's start (now()), so a transaction's writes are one moment. A row written
  // twice in one transaction keeps its last version (the earlier one would last no time); one whose open version
  // started later than this transaction (a concurrent writer, committed first) is replaced at that version's start.
  return `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO ${h} ("__valid", ${names}) SELECT tstzrange(now(), NULL), ${names} FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        -- a DELETE that removed nothing (a link table's or the tags' before their INSERT, on every write naming them)
        -- costs one look, not two statements; an UPDATE is not asked (it nearly always changed its row: a bulk PATCH
        -- fires this once per object, and would pay the look every time)
        IF NOT EXISTS (SELECT FROM old_rows) THEN
          RETURN NULL;
        END IF;
        DELETE FROM ${h} h USING old_rows o WHERE h."id" = o."id" AND upper_inf(h."__valid") AND lower(h."__valid") >= now();
        UPDATE ${h} h SET "__valid" = tstzrange(lower(h."__valid"), now()) FROM old_rows o WHERE h."id" = o."id" AND upper_inf(h."__valid");
      ELSE
        WITH gone AS (
          DELETE FROM ${h} h USING old_rows o WHERE h."id" = o."id" AND upper_inf(h."__valid") AND lower(h."__valid") >= now()
          RETURNING h."id", lower(h."__valid") AS at
        ), closed AS (
          UPDATE ${h} h SET "__valid" = tstzrange(lower(h."__valid"), now()) FROM old_rows o
           WHERE h."id" = o."id" AND upper_inf(h."__valid") AND lower(h."__valid") < now() RETURNING h."id"
        )
        INSERT INTO ${h} ("__valid", ${names})
        SELECT tstzrange(greatest(now(), g.at), NULL), ${columns.map((c) => `n.${quoteIdent(c.name)}`).join(', ')} FROM new_rows n LEFT JOIN gone g ON g."id" = n."id";
      END IF;
      RETURN NULL;
    END $fn$`;
}

/** The start of history's table (one row), set once. */
export function historyStartStatements(schema: string): string[] {
  const t = `${quoteIdent(schema)}.${quoteIdent(HISTORY_START_TABLE)}`;
  return [
    `CREATE TABLE IF NOT EXISTS ${t} ("id" INTEGER PRIMARY KEY CHECK ("id" = 1), "started" TIMESTAMP WITH TIME ZONE NOT NULL)`,
    `INSERT INTO ${t} ("id", "started") VALUES (1, now()) ON CONFLICT ("id") DO NOTHING`,
  ];
}

/** Something that runs one SQL text and returns its rows (sequelize, a pg client). */
export type RunSql = (text: string) => Promise<Record<string, unknown>[]>;

/** Tables of `schema` with an `id` column that keep history, with their columns in order. */
async function tablesToKeep(run: RunSql, schema: string, only?: string[]): Promise<Map<string, Column[]>> {
  const rows = await run(
    `SELECT c.relname AS tbl, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ${quoteLiteral(schema)} AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY c.relname, a.attnum`,
  );
  const out = new Map<string, Column[]>();
  for (const r of rows) {
    const table = String(r.tbl);
    if (!keepsHistory(table) || (only && !only.includes(table))) continue;
    if (!out.has(table)) out.set(table, []);
    out.get(table)!.push({ name: String(r.name), type: String(r.type) });
  }
  for (const [table, cols] of out) if (!cols.some((c) => c.name === 'id')) out.delete(table);
  return out;
}

/** The column lists of each table's btree indexes on plain columns (not led by `id`, which history indexes anyway). */
async function indexedColumns(run: RunSql, schema: string): Promise<Map<string, string[][]>> {
  const rows = await run(
    `SELECT c.relname AS tbl, array_agg(a.attname::text ORDER BY k.ord) AS cols
       FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_am m ON m.oid = i.relam
       CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
      WHERE n.nspname = ${quoteLiteral(schema)} AND m.amname = 'btree' AND x.indexprs IS NULL
      GROUP BY x.indexrelid, c.relname`,
  );
  const out = new Map<string, string[][]>();
  for (const r of rows) {
    const cols = r.cols as string[];
    if (cols[0] === 'id') continue;
    const table = String(r.tbl);
    const lists = out.get(table) ?? [];
    if (!lists.some((l) => l.join() === cols.join())) lists.push(cols);
    out.set(table, lists);
  }
  for (const lists of out.values()) lists.sort((a, b) => a.join().localeCompare(b.join()));
  return out;
}

/**
 * The DDL keeping history for every table of `schema` that keeps it (or
 * only those named): what the history migration runs, what the expected
 * schema is built with (so the schema test holds both to one rule), and what
 * a later migration runs for the tables it creates or changes
 * (`syncHistory`: a column added to a table reaches its history).
 */
export async function historyDdl(run: RunSql, schema: string, only?: string[]): Promise<string[]> {
  const tables = await tablesToKeep(run, schema, only);
  const indexes = await indexedColumns(run, schema);
  const out = historyStartStatements(schema);
  for (const [table, columns] of tables) {
    const h = `${quoteIdent(schema)}.${quoteIdent(historyName(table, HISTORY_SUFFIX))}`;
    // columns the history lacks (added to the table since): appended, nullable, before the trigger names them
    out.push(...columns.map((c) => `ALTER TABLE IF EXISTS ${h} ADD COLUMN IF NOT EXISTS ${quoteIdent(c.name)} ${c.type}`));
    out.push(...historyStatements(schema, table, columns, indexes.get(table)));
  }
  return out;
}

const quoteLiteral = (s: string) => `'${s.replace(/'/g, "''")}'`;

const sequelizeRun = (qi: QueryInterface): RunSql => async (text) => (await qi.sequelize.query(text))[0] as Record<string, unknown>[];

/**
 * For a migration that creates or alters tables after the history migration:
 * their history follows (new tables get theirs, new columns reach it).
 */
export async function syncHistory(qi: QueryInterface, schema: string, tables: string[]): Promise<void> {
  await runStatements(qi, [(await historyDdl(sequelizeRun(qi), schema, tables)).join(';\n')]);
}

/** The library's migration that starts history for every table a service has (listed after `sharedTables`). */
export const historyTables: Migration = {
  name: 'history_0001_tables',
  // one text (thousands of statements in dcim: one round trip each took 6 s of a test stack's start)
  up: async ({ qi, schema }) => runStatements(qi, [(await historyDdl(sequelizeRun(qi), schema)).join(';\n')]),
};

/**
 * History's second migration (docs/decisions/034, measured): on a database
 * whose histories `history_0001` made before, the index of each object's
 * open version (the triggers seek it instead of every version of the object)
 * and the trigger functions that skip statements that changed nothing. Two
 * statements a history, sent as one text; on a fresh database `history_0001`
 * made both already and they change nothing.
 */
export const historyOpenVersions: Migration = {
  name: 'history_0002_open_versions',
  up: async ({ qi, schema }) => {
    const run = sequelizeRun(qi);
    const histories = new Set((await run(`SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${quoteLiteral(schema)}`)).map((r) => String(r.relname)));
    const tables = [...(await tablesToKeep(run, schema))].filter(([table]) => histories.has(historyName(table, HISTORY_SUFFIX)));
    const statements = tables.flatMap(([table, columns]) => [openVersionsIndex(schema, table), recordFunction(schema, table, columns)]);
    if (statements.length) await qi.sequelize.query(statements.join(';\n'));
  },
};

/** The tables of `schema` that keep history (those with a history table) and history's start. */
export async function loadHistoryReads(run: RunSql, schema: string): Promise<HistoryReads | null> {
  const start = await run(`SELECT to_regclass(${quoteLiteral(`${quoteIdent(schema)}.${quoteIdent(HISTORY_START_TABLE)}`)}) AS t`);
  if (!start[0]?.t) return null;
  const [{ started }] = await run(`SELECT started FROM ${quoteIdent(schema)}.${quoteIdent(HISTORY_START_TABLE)}`);
  const rows = await run(
    `SELECT p.proname AS fn FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ${quoteLiteral(schema)} AND p.proname LIKE '%\\_\\_as\\_of'`,
  );
  const functions = new Set(rows.map((r) => String(r.fn)));
  const tables = await run(
    `SELECT c.relname AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${quoteLiteral(schema)} AND c.relkind = 'r'`,
  );
  const kept = new Set(tables.map((r) => String(r.t)).filter((t) => keepsHistory(t) && functions.has(asOfFunction(t))));
  return new HistoryReads(schema, kept, new Date(String(started)).toISOString());
}
