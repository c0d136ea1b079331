import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '@inventory/core';
import { Sql, sql, raw, join, or } from '@inventory/filtering';
import { type ModelDef, type ServiceContext, attributesOf } from '../model';

/**
 * Keyset ("seek") paging over whatever ORDER BY the query builder produces:
 * the ORDER BY is split into its terms, the last row of a page gives each
 * term's value, and the next page is a WHERE on those values, never an
 * OFFSET. Terms may differ in direction and may be NULL.
 */

/** One ORDER BY term: its expression (over alias `t`), direction and where its NULLs sort. */
export interface OrderTerm {
  expr: Sql;
  desc: boolean;
  nullsFirst: boolean;
  /** False when the expression is a column the schema declares NOT NULL (or a count). */
  nullable: boolean;
}

const DIRECTION = /(?:\s+(ASC|DESC))?(?:\s+NULLS\s+(FIRST|LAST))?\s*$/i;

/** Splits SQL at its top-level commas (outside parentheses and quotes); bind values stay with their part. */
export function splitTopLevel(text: Sql): Sql[] {
  const parts: { strings: string[]; values: unknown[] }[] = [{ strings: [''], values: [] }];
  let depth = 0;
  let quote: string | null = null;
  text.strings.forEach((segment, i) => {
    let cur = parts[parts.length - 1];
    let from = 0;
    for (let j = 0; j < segment.length; j++) {
      const c = segment[j];
      if (quote) {
        if (c === quote) quote = null;
      } else if (c === "'" || c === '"') quote = c;
      else if (c === '(') depth++;
      else if (c === ')') depth--;
      else if (c === ',' && depth === 0) {
        cur.strings[cur.strings.length - 1] += segment.slice(from, j);
        cur = { strings: [''], values: [] };
        parts.push(cur);
        from = j + 1;
      }
    }
    cur.strings[cur.strings.length - 1] += segment.slice(from);
    if (i < text.values.length) {
      cur.values.push(text.values[i]);
      cur.strings.push('');
    }
  });
  return parts.map((p) => new Sql(p.strings, p.values)).filter((p) => !p.isEmpty);
}

/** Columns a model's table declares NOT NULL (cached per declaration). */
const notNullCache = new WeakMap<ModelDef, Set<string>>();
function notNullColumns(ctx: ServiceContext, model: ModelDef): Set<string> {
  let found = notNullCache.get(model);
  if (!found) {
    found = new Set(['id']);
    for (const [column, attr] of Object.entries(attributesOf(model, ctx.name, ctx.models))) if (attr.allowNull === false) found.add(column);
    notNullCache.set(model, found);
  }
  return found;
}

const COLUMN = /^t\.(?:"((?:[^"]|"")+)"|([A-Za-z_][A-Za-z0-9_]*))$/;
const COUNT = /^"__count_[^"]+"$/;

/** The terms of an ORDER BY (as `orderBy` builds it), with what is known of their NULLs. */
export function orderTerms(ctx: ServiceContext, model: ModelDef, order: Sql): OrderTerm[] {
  const notNull = notNullColumns(ctx, model);
  return splitTopLevel(order).map((part) => {
    const last = part.strings[part.strings.length - 1];
    const m = DIRECTION.exec(last)!;
    const strings = [...part.strings];
    strings[strings.length - 1] = last.slice(0, m.index);
    strings[0] = strings[0].trimStart();
    const expr = new Sql(strings, part.values);
    const desc = (m[1] ?? '').toUpperCase() === 'DESC';
    // PostgreSQL's defaults: NULLs sort as if larger than any value
    const nullsFirst = m[2] ? m[2].toUpperCase() === 'FIRST' : desc;
    const text = expr.values.length === 0 ? expr.strings[0].trim() : null;
    const column = text ? COLUMN.exec(text) : null;
    const name = column ? (column[1]?.replace(/""/g, '"') ?? column[2]) : null;
    const nullable = !(text && COUNT.test(text)) && !(name && notNull.has(name));
    return { expr, desc, nullsFirst, nullable };
  });
}

/** `ORDER BY` over the key columns a page selected (`"__s0"`, …): the same order, outside the query that computed them. */
export function orderOfKeys(terms: OrderTerm[]): Sql {
  return raw(terms.map((t, i) => `"__s${i}" ${t.desc ? 'DESC' : 'ASC'} NULLS ${t.nullsFirst ? 'FIRST' : 'LAST'}`).join(', '));
}

/** Each term's value as text (`"__k0"`, …), for the cursor, and as itself (`"__s0"`, …) when pages are merged. */
export function keyColumns(terms: OrderTerm[], typed: boolean): Sql {
  return join(
    terms.map((t, i) => (typed ? sql`(${t.expr}) AS ${raw(`"__s${i}"`)}, (${t.expr})::text AS ${raw(`"__k${i}"`)}` : sql`(${t.expr})::text AS ${raw(`"__k${i}"`)}`)),
    ', ',
  );
}

/** The sort values of a row a page read with `keyColumns`. */
export function keysOf(row: Record<string, unknown>, terms: OrderTerm[]): (string | null)[] {
  return terms.map((_, i) => {
    const v = row[`__k${i}`];
    return v === null || v === undefined ? null : String(v);
  });
}

/**
 * Rows strictly after `values` in the order of `terms`, as one or more
 * conditions whose union is the answer (each a separate branch of the page
 * query, so that each bounds the leading term the way an index can use).
 * Values are bound as text: PostgreSQL reads them as the type of the
 * expression they are compared with, so they round-trip exactly.
 */
export function afterConditions(terms: OrderTerm[], values: (string | null)[]): Sql[] {
  const sameDirection = terms.every((t) => t.desc === terms[0].desc);
  if (sameDirection && terms.every((t, i) => !t.nullable && values[i] !== null)) {
    // no NULL anywhere and one direction: a row-value comparison
    const op = raw(terms[0].desc ? ' < ' : ' > ');
    return [sql`(${join(terms.map((t) => t.expr), ', ')})${op}(${join(values.map((v) => sql`${v}`), ', ')})`];
  }
  const gt = (t: OrderTerm) => raw(t.desc ? ' < ' : ' > ');
  /** Strictly after, among rows equal on the terms before `i`. */
  const rest = (i: number): Sql => {
    if (i === terms.length) return raw('FALSE');
    const t = terms[i];
    const v = values[i];
    const more = i + 1 < terms.length;
    if (v === null) {
      const parts = [more ? sql`(${t.expr} IS NULL AND ${rest(i + 1)})` : raw('FALSE')];
      if (t.nullsFirst) parts.push(sql`${t.expr} IS NOT NULL`);
      return or(parts);
    }
    const parts = [sql`${t.expr}${gt(t)}${v}`];
    if (more) parts.push(sql`(${t.expr} = ${v} AND ${rest(i + 1)})`);
    if (!t.nullsFirst && t.nullable) parts.push(sql`${t.expr} IS NULL`);
    return or(parts);
  };
  const lead = terms[0];
  const v = values[0];
  const tail = terms.length > 1 ? rest(1) : raw('FALSE');
  if (v === null) {
    const branches = [sql`${lead.expr} IS NULL AND ${tail}`];
    if (lead.nullsFirst) branches.push(sql`${lead.expr} IS NOT NULL`);
    return branches;
  }
  const ge = raw(lead.desc ? ' <= ' : ' >= ');
  const branches = [sql`${lead.expr}${ge}${v} AND (${lead.expr}${gt(lead)}${v} OR (${lead.expr} = ${v} AND ${tail}))`];
  if (!lead.nullsFirst && lead.nullable) branches.push(sql`${lead.expr} IS NULL`);
  return branches;
}

/* ---- the opaque cursor ---- */

const INVALID = () => new ValidationError({ cursor: ['Invalid cursor.'] });
const MAX_CURSOR_LENGTH = 8192;
/** Without a configured secret (a context built by hand), cursors are good for this process only. */
const PROCESS_SECRET = randomBytes(32).toString('hex');

function keyOf(ctx: ServiceContext): Buffer {
  return createHmac('sha256', ctx.settings.cursorSecret ?? PROCESS_SECRET).update('inventory list cursor v1').digest();
}

/** What a cursor is good for: this model listed in this order (another ordering's cursor is refused). */
export function orderFingerprint(model: ModelDef, order: Sql): string {
  return createHash('sha256').update(JSON.stringify([model.label, order.strings, order.values])).digest('base64url').slice(0, 16);
}

function sign(ctx: ServiceContext, payload: string): string {
  return createHmac('sha256', keyOf(ctx)).update(payload).digest().subarray(0, 16).toString('base64url');
}

/** The token for "after this row": its sort values and the order they belong to, signed. */
export function encodeCursor(ctx: ServiceContext, fingerprint: string, values: (string | null)[]): string {
  const payload = Buffer.from(JSON.stringify({ o: fingerprint, k: values })).toString('base64url');
  return `${payload}.${sign(ctx, payload)}`;
}

/** The sort values a cursor carries; a 400 (`{"cursor": ["Invalid cursor."]}`) for anything not issued for this order. */
export function decodeCursor(ctx: ServiceContext, token: string, fingerprint: string, terms: number): (string | null)[] {
  if (token.length > MAX_CURSOR_LENGTH) throw INVALID();
  const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token);
  if (!m) throw INVALID();
  const expected = Buffer.from(sign(ctx, m[1]));
  const given = Buffer.from(m[2]);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw INVALID();
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(m[1], 'base64url').toString('utf8'));
  } catch {
    throw INVALID();
  }
  const { o, k } = (body ?? {}) as { o?: unknown; k?: unknown };
  if (o !== fingerprint || !Array.isArray(k) || k.length !== terms || !k.every((v) => v === null || typeof v === 'string')) throw INVALID();
  return k as (string | null)[];
}
