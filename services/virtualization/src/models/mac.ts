import { type FilterDef, type Sql, sql, raw, or, stringLookup } from '@inventory/filtering';

/**
 * An EUI-48 as netaddr reads it (colons or hyphens between one- or two-digit
 * octets, Cisco's dotted triples, or twelve bare hex digits), in NetBox's
 * form: upper case, colon-separated (`00:1A:2B:3C:4D:5E`); null when it is none.
 */
export function normalizeMac(value: string): string | null {
  const v = value.trim();
  let hex: string | null = null;
  const octets = v.split(/[:-]/);
  if (octets.length === 6 && octets.every((o) => /^[0-9a-f]{1,2}$/i.test(o)) && !(v.includes(':') && v.includes('-'))) {
    hex = octets.map((o) => o.padStart(2, '0')).join('');
  } else if (/^[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}$/i.test(v)) hex = v.replace(/\./g, '');
  else if (/^[0-9a-f]{12}$/i.test(v)) hex = v;
  if (!hex) return null;
  return hex.toUpperCase().match(/../g)!.join(':');
}

const NEGATED: Record<string, string> = { n: '', nic: 'ic', nisw: 'isw', niew: 'iew', nie: 'ie' };

/**
 * NetBox's MultiValueMACAddressFilter over the MAC addresses of related rows:
 * `exists(cond)` is the SQL that some related row's column (`column`) meets
 * `cond`. The base filter and `__n` compare normalised addresses (an invalid
 * one matches nothing); the text lookups compare the stored form.
 */
export function macFilter(name: string, column: Sql, exists: (cond: Sql) => Sql): FilterDef {
  return {
    kind: 'method',
    name,
    lookups: ['n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie'],
    apply: (values, lookup) => {
      const positive = lookup === null || lookup === 'n' ? null : (NEGATED[lookup] ?? lookup);
      let cond: Sql;
      if (positive === null || positive === '') {
        const macs = values.map(normalizeMac).filter((m): m is string => m !== null);
        cond = macs.length ? sql`${column} = ANY(${macs}::text[])` : raw('FALSE');
      } else cond = or([stringLookup(column, positive, values)]);
      const hit = exists(cond);
      return lookup !== null && lookup in NEGATED ? sql`NOT ${hit}` : hit;
    },
  };
}
