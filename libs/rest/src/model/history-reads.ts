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
 * run as of T, each name becomes `"schema"."site__as_of"('T'::timestamptz)`.
 * Same statements, same count; only reads are rewritten (a GET writes
 * nothing to these tables). The moment is a literal, not a parameter: the
 * planner then estimates the versions valid at T from the history's
 * statistics. As a parameter, a generic plan (the connections force them)
 * guessed 0.5 % of the versions, sorted all 10,000 sites valid at T with
 * their counts instead of walking the `_name` index for 50 (122 ms against
 * 4.6 ms; docs/decisions/034). A text run often is prepared like any other
 * (db.ts), on a budget of its own: its plan is its moment's.
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

  /** The statement read as of `asOf`, or the same text when it reads no kept table (or writes). */
  rewrite(text: string, asOf: string): string {
    if (!this.pattern || !/^\s*(SELECT|WITH|\()/i.test(text)) return text;
    const at = `'${asOf.replace(/'/g, "''")}'::timestamptz`;
    return text.replace(this.pattern, (_m, quoted: string) => `${quoteIdent(this.schema)}.${quoteIdent(asOfFunction(quoted.slice(1, -1).replace(/""/g, '"')))}(${at})`);
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
