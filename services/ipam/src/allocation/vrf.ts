import { type Sql, sql, raw, quoteIdent } from '@inventory/filtering';

/** `vrf_id = <id>`, or `vrf_id IS NULL` for the global table: the usual `where` of a search. */
export function vrfIs(vrfId: number | null, columnName = 'vrf_id'): Sql {
  const col = raw(quoteIdent(columnName));
  return vrfId === null ? sql`${col} IS NULL` : sql`${col} = ${vrfId}::int`;
}
