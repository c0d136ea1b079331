import { ValidationError } from '@inventory/core';
import { excludedBy, type FilterDef, raw, sql } from '@inventory/filtering';
import { keyResolver, type ServiceContext } from '@inventory/rest';

/**
 * Membership filter over a many-to-many link table by an attribute of the
 * target (`?group=<name>` on users, `?user=<username>` on permissions).
 * Unknown values are a 400, as django-filter's ModelMultipleChoiceFilter.
 */
export function m2mKeyFilter(ctx: ServiceContext, name: string, through: string, target: string, key: string): FilterDef {
  const table = raw(ctx.db.table(through));
  return {
    kind: 'method',
    name,
    lookups: ['n'],
    apply: async (values, lookup) => {
      const found = await keyResolver(ctx, target, key, false)(values);
      const ids: number[] = [];
      for (const v of values) {
        const hit = found.get(v);
        if (!hit) throw new ValidationError({ [lookup ? `${name}__${lookup}` : name]: [`Select a valid choice. ${v} is not one of the available choices.`] });
        ids.push(...hit);
      }
      const exists = sql`EXISTS (SELECT 1 FROM ${table} l WHERE l.owner_id = t.id AND l.target_id = ANY(${ids}::bigint[]))`;
      return excludedBy(lookup, exists);
    },
  };
}

/** `%text%` for ILIKE, with the wildcards of the text escaped. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
}
