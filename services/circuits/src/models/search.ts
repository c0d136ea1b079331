import { sql, or, type FilterDef, type Sql } from '@inventory/filtering';

/**
 * A `q` filter over SQL expressions (case-insensitive contains), for models
 * whose NetBox search reaches related objects (a provider's accounts, a
 * circuit's terminations); blank `q` filters nothing.
 */
export function searchFilter(parts: (pattern: string) => Sql[]): FilterDef {
  return {
    kind: 'method',
    name: 'q',
    apply: (values) => {
      const text = values[values.length - 1]?.trim();
      if (!text) return undefined;
      const pattern = `%${text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
      return or(parts(pattern));
    },
  };
}

/** `<expr> ILIKE <pattern>` over text. */
export const ilike = (expr: Sql, pattern: string): Sql => sql`${expr}::text ILIKE ${pattern}`;
