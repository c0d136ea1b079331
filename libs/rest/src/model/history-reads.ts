import { createHash } from 'node:crypto';
import { quoteIdent } from '@inventory/filtering';

/* The names of history's objects, and how an `as_of` read names them (history.ts makes them; db.ts reads through them). */

export const HISTORY_SUFFIX = '__history';
const MAX_IDENTIFIER = 63;

/** A derived object's name (history table, function, index), cut with a hash past 63 characters. */
export function historyName(table: string, suffix: string): string {
  const full = `${table}${suffix}`;
  if (full.length <= MAX_IDENTIFIER) return full;
  const hash = createHash('sha1').update(full).digest('hex').slice(0, 8);
  return `${table.slice(0, MAX_IDENTIFIER - suffix.length - hash.length - 1)}_${hash}${suffix}`;
}

/** The function `t__as_of(timestamptz)` read in place of `t` by an `as_of` read. */
export const asOfFunction = (table: string): string => historyName(table, '__as_of');

/**
 * How an `as_of` read reads the past: every statement of the request names
 * the tables that keep history (`"schema"."site"`), wherever its SQL was
 * built (filters cached at start, representations, counts, projections);
 * run as of T, each name becomes `"schema"."site__as_of"($n)` with T as one
 * more parameter. Same statements, same count; only reads are rewritten
 * (a GET writes nothing to these tables).
 */
export class HistoryReads {
  private readonly pattern: RegExp | null;

  constructor(
    private readonly schema: string,
    readonly tables: Set<string>,
    /** History's start (ISO): the migration's time, or retention's cut-off. */
    public start: string,
  ) {
    const names = [...tables].sort((a, b) => b.length - a.length).map((t) => escapeRegExp(quoteIdent(t)));
    this.pattern = names.length ? new RegExp(`${escapeRegExp(quoteIdent(schema))}\\.(${names.join('|')})`, 'g') : null;
  }

  rewrite(text: string, values: unknown[], asOf: string): { text: string; values: unknown[] } {
    if (!this.pattern || !/^\s*(SELECT|WITH|\()/i.test(text)) return { text, values };
    const param = `$${values.length + 1}::timestamptz`;
    let used = false;
    const out = text.replace(this.pattern, (_m, quoted: string) => {
      used = true;
      return `${quoteIdent(this.schema)}.${quoteIdent(asOfFunction(quoted.slice(1, -1).replace(/""/g, '"')))}(${param})`;
    });
    return used ? { text: out, values: [...values, asOf] } : { text, values };
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

