import { ValidationError } from '@inventory/core';
import { type Sql, sql, raw, ident, join, and } from '@inventory/filtering';
import { excludesConfigContext } from './config-context';
import { columnOf, type CountDef, type ModelDef, type ServiceContext, type Row, type Queryable } from '../model';
import { fieldsToCompute, wants, type FieldSelection } from './field-selection';
import { afterConditions, decodeCursor, encodeCursor, keyColumns, keysOf, orderFingerprint, orderOfKeys, orderTerms, type OrderTerm } from './keyset';
import { pageLinks, parsePage, withParams } from './pagination';
import { countColumns, orderBy, TAG_IDS_COLUMN, tagIds, totalColumn } from './query';
import { modeOf } from './request';
import { fieldsFor, represent } from './serialize';

/**
 * Read options beyond NetBox 3.7, on every model's list (and, for `fields`
 * and `omit`, detail) endpoint:
 *
 * - `fields=a,b,rel.x` / `omit=a,b`: NetBox 4.x's dynamic fields. Only the
 *   shown fields are computed and only their columns read; `fields` wins over
 *   `omit`, and either over `brief`. Unknown names are ignored, as in NetBox.
 *   `rel.x` (one level) shows only `x` of a related object (or of each object
 *   of a list), as NetBox Labs documents it.
 * - `count=false`: `count` is null and nothing is counted.
 * - `start=<id>`: NetBox 4.6's cursor pagination: objects with an id at or
 *   above `start` in id order, `next` carrying the next `start`, `count` and
 *   `previous` null; not with `offset`.
 * - `cursor=`: keyset pagination in any ordering (the model's or
 *   `ordering=`): empty for the first page, then the opaque token of `next`.
 */
export const READ_OPTION_PARAMS: readonly string[] = ['fields', 'omit', 'count', 'start', 'cursor'];

export interface ReadOptions {
  select: FieldSelection | null;
  /** False: the page's `count` is null and no COUNT runs. */
  count: boolean;
  /** `start=`: the smallest id of the page (id order). */
  start: number | null;
  /** `cursor=`: '' for the first page, else the token of a `next` link. */
  cursor: string | null;
}

/** Comma-separated names of a parameter, repeats joined. */
function names(params: URLSearchParams, name: string): string[] {
  return params
    .getAll(name)
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
}

/** `fields=` / `omit=`; null when neither asks for anything. */
export function parseFieldSelection(params: URLSearchParams): FieldSelection | null {
  const fields = names(params, 'fields');
  if (fields.length) {
    const include = new Set<string>();
    const nested = new Map<string, Set<string>>();
    for (const name of fields) {
      const dot = name.indexOf('.');
      if (dot < 0) {
        include.add(name);
        continue;
      }
      const [head, part] = [name.slice(0, dot), name.slice(dot + 1)];
      // one level deep; deeper names select nothing (as any unknown name)
      if (head && part && !part.includes('.')) nested.set(head, (nested.get(head) ?? new Set()).add(part));
    }
    // a related object asked for whole is shown whole
    for (const name of include) nested.delete(name);
    return { include, nested, omit: new Set() };
  }
  const omit = names(params, 'omit');
  return omit.length ? { include: null, nested: new Map(), omit: new Set(omit) } : null;
}

const TRUE = /^(true|1|yes|on)$/i;
const FALSE = /^(false|0|no|off)$/i;

/** The list's read options; null when none is asked for (NetBox 3.7's list, unchanged). 400 naming each bad one. */
export function parseReadOptions(params: URLSearchParams): ReadOptions | null {
  const errors: Record<string, string[]> = {};
  const select = parseFieldSelection(params);
  let count = true;
  const countText = params.get('count');
  if (countText !== null && countText.trim() !== '') {
    if (FALSE.test(countText.trim())) count = false;
    else if (!TRUE.test(countText.trim())) errors.count = ['Must be a valid boolean.'];
  }
  let start: number | null = null;
  const startText = params.get('start');
  if (startText !== null && startText.trim() !== '') {
    if (!/^\d+$/.test(startText.trim())) errors.start = ['A valid non-negative integer is required.'];
    // past every id is simply an empty page
    else start = Math.min(Number(startText.trim()), Number.MAX_SAFE_INTEGER);
  }
  const cursor = params.has('cursor') ? (params.get('cursor') ?? '').trim() : null;
  const offset = (params.get('offset') ?? '').trim() !== '';
  if (start !== null && offset) errors.start = ['The start and offset parameters cannot be used together.'];
  if (cursor !== null && offset) errors.cursor = ['The cursor and offset parameters cannot be used together.'];
  if (cursor !== null && startText !== null && startText.trim() !== '') errors.cursor = ['The cursor and start parameters cannot be used together.'];
  if (Object.keys(errors).length) throw new ValidationError(errors);
  if (!select && count && start === null && cursor === null) return null;
  return { select, count, start, cursor };
}

/* ---- reading rows for a selection and a page ---- */

interface Read {
  where: Sql;
  order: Sql;
  select: FieldSelection | null;
  /** Sort keys to select (`__k0`…), for the next cursor. */
  terms?: OrderTerm[];
  /** Keyset: rows after the cursor, as branches whose union is the answer. */
  after?: Sql[];
  limit: number | null;
  offset?: number;
  /** Add `__total` (the count of every matching row) to each row. */
  total?: boolean;
}

/** Count annotations computed in the statement: the shown ones, and those the order sorts by. */
function countsNeeded(model: ModelDef, select: FieldSelection | null, order: Sql): Record<string, CountDef> {
  const text = order.strings.join('');
  return Object.fromEntries(Object.entries(model.counts).filter(([name]) => wants(select, name) || text.includes(`"__count_${name}"`)));
}

/**
 * The columns a selection needs: id and version always (url, ETag), each
 * shown field's own, and the whole row when `display` or a computed
 * (virtual) field is shown, since those may read any column.
 */
function columnsFor(model: ModelDef, select: FieldSelection | null, counts: string[]): Sql {
  if (!select || wants(select, 'display') || Object.entries(model.fields).some(([n, f]) => f.virtual && wants(select, n))) return raw('t.*');
  const columns = new Set(['id', '_version']);
  for (const name of fieldsToCompute(model, fieldsFor(model, 'full'), select)) {
    const field = model.fields[name];
    const column = columnOf(name, field);
    if (column) columns.add(column);
    if (field.type === 'generic') columns.add(field.typeField).add(field.idField);
  }
  if (model.customFields && wants(select, 'custom_fields')) columns.add('custom_field_data');
  if (model.timestamps) for (const c of ['created', 'last_updated']) if (wants(select, c)) columns.add(c);
  if (model.tree && wants(select, '_depth')) columns.add('_depth');
  for (const name of counts) if (wants(select, name)) columns.add(`__count_${name}`);
  if (model.tags && wants(select, 'tags')) columns.add(TAG_IDS_COLUMN);
  return join([...columns].map((c) => sql`t.${ident(c)}`), ', ');
}

/**
 * One statement: the filtered rows (with their count annotations) as a
 * subquery `t`, so that the ORDER BY, the keyset condition and the selected
 * columns all read the same names, whatever the order's expressions are.
 * Keyset branches each take their own ordered, limited scan, merged by the
 * sort keys.
 */
async function readRows(ctx: ServiceContext, model: ModelDef, r: Read, db: Queryable = ctx.db): Promise<Row[]> {
  const counts = countsNeeded(model, r.select, r.order);
  const annotations = countColumns(ctx, { ...model, counts });
  // the tag ids with the rows, when they are shown (the representation then asks nothing more for them)
  if (model.tags && wants(r.select, 'tags')) annotations.push(sql`${tagIds(ctx, model)} AS ${ident(TAG_IDS_COLUMN)}`);
  const inner = sql`SELECT t.*${annotations.length ? sql`, ${join(annotations, ', ')}` : raw('')} FROM ${raw(ctx.db.table(model.table))} t WHERE ${r.where}`;
  const branches: (Sql | null)[] = r.after ?? [null];
  const merged = branches.length > 1;
  const columns = [columnsFor(model, r.select, Object.keys(counts))];
  if (r.terms) columns.push(keyColumns(r.terms, merged));
  if (r.total) columns.push(totalColumn(raw(ctx.db.table(model.table)), r.where));
  const limit = r.limit === null ? raw('') : sql` LIMIT ${r.limit}`;
  const offset = r.offset ? sql` OFFSET ${r.offset}` : raw('');
  const one = (cond: Sql | null) =>
    sql`SELECT ${join(columns, ', ')} FROM (${inner}) t${cond ? sql` WHERE ${cond}` : raw('')} ORDER BY ${r.order}${limit}${offset}`;
  const statement = merged
    ? sql`SELECT * FROM (${join(
        branches.map((b) => sql`(${one(b)})`),
        ' UNION ALL ',
      )}) u ORDER BY ${orderOfKeys(r.terms!)}${limit}`
    : one(branches[0]);
  return db.query(statement);
}

/**
 * Rows for a selection, without a page's total: only the columns, counts and
 * tag ids the selection shows (GraphQL's reads, one per nesting level).
 */
export function readSelected(ctx: ServiceContext, model: ModelDef, q: { where: Sql; order: Sql; select: FieldSelection; limit: number | null; offset?: number }): Promise<Row[]> {
  return readRows(ctx, model, q);
}

/** One object for a detail read with `fields=` / `omit=`: only the columns the shown fields need. */
export async function readOne(ctx: ServiceContext, model: ModelDef, id: number, scope: Sql, select: FieldSelection): Promise<Row | undefined> {
  const [row] = await readRows(ctx, model, { where: and([sql`t.id = ${id}`, scope]), order: raw('t.id ASC'), select, limit: null });
  return row;
}

export interface ListPage {
  count: number | null;
  next: string | null;
  previous: string | null;
  results: Row[];
}

/** A list page with read options (see READ_OPTION_PARAMS): offset, `start` or `cursor` paging. */
export async function listWithOptions(
  ctx: ServiceContext,
  model: ModelDef,
  q: { url: URL; where: Sql; base: string; options: ReadOptions },
): Promise<ListPage> {
  const { url, where, options } = q;
  const params = url.searchParams;
  const { select } = options;
  const page = parsePage(params, ctx.settings.paginateCount, ctx.settings.maxPageSize);
  // one row past the page says whether there is a next one, without counting
  const probe = page.limit === null ? null : page.limit + 1;
  const cut = (rows: Row[]) => (page.limit !== null && rows.length > page.limit ? rows.slice(0, page.limit) : null);
  let rows: Row[];
  let count: number | null = null;
  let next: string | null = null;
  let previous: string | null = null;

  if (options.start !== null) {
    // NetBox 4.6: id order, ids from `start` on; the next page starts after the last id shown
    rows = await readRows(ctx, model, { where: and([where, sql`t.id >= ${options.start}`]), order: raw('t.id ASC'), select, limit: probe });
    const shown = cut(rows);
    if (shown) {
      rows = shown;
      next = withParams(url, { start: String(Number(rows[rows.length - 1].id) + 1), limit: String(page.limit), offset: null });
    }
  } else if (options.cursor !== null) {
    const order = orderBy(ctx, model, params.get('ordering'));
    const terms = orderTerms(ctx, model, order);
    const fingerprint = orderFingerprint(model, order);
    const after = options.cursor === '' ? undefined : afterConditions(terms, decodeCursor(ctx, options.cursor, fingerprint, terms.length));
    rows = await readRows(ctx, model, { where, order, select, terms, after, limit: probe });
    const shown = cut(rows);
    if (shown) {
      rows = shown;
      next = withParams(url, { cursor: encodeCursor(ctx, fingerprint, keysOf(rows[rows.length - 1], terms)), limit: String(page.limit), offset: null });
    }
  } else {
    const order = orderBy(ctx, model, params.get('ordering'));
    if (options.count) {
      rows = await readRows(ctx, model, { where, order, select, limit: page.limit, offset: page.offset, total: true });
      if (rows.length) count = Number(rows[0].__total);
      else if (page.offset === 0) count = 0;
      else count = Number((await ctx.db.query(sql`SELECT count(*) AS n FROM ${raw(ctx.db.table(model.table))} t WHERE ${where}`))[0].n);
      ({ next, previous } = pageLinks(url, page, count));
    } else {
      rows = await readRows(ctx, model, { where, order, select, limit: probe, offset: page.offset });
      const shown = cut(rows);
      if (shown) rows = shown;
      // links as if the total were known: one more than shown when a row lay past the page
      ({ next, previous } = pageLinks(url, page, shown ? Number.MAX_SAFE_INTEGER : page.offset + rows.length));
    }
  }
  const results = await represent(ctx, model, rows, { mode: modeOf(params, select), base: q.base, select, excludeConfigContext: excludesConfigContext(params) });
  return { count, next, previous, results };
}
