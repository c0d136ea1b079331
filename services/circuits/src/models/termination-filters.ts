import { ValidationError } from '@inventory/core';
import { excludedBy, type FilterDef, raw, sql, type Sql } from '@inventory/filtering';
import { keyResolver, projection, type ServiceContext } from '@inventory/rest';

/**
 * NetBox's filters of circuits and providers that go through circuit
 * terminations (`terminations__site`, `circuits__terminations__site`):
 * Site-scope (`site`, `site_id`, and the site's `region` and `site_group`
 * with their descendants) and, for circuits, `provider_network_id`. An
 * object matches when any of its terminations does; `__n` excludes objects
 * with such a termination. `reach(match)` is the condition "a termination
 * `ct` of row `t` satisfies match".
 */
export function terminationFilters(ctx: ServiceContext, reach: (match: Sql) => Sql, withNetwork: boolean): FilterDef[] {
  const sites = projection(ctx, 'dcim.site');
  const filter = (name: string, label: string, key: 'id' | 'slug', tree: boolean, match: (ids: number[]) => Sql): FilterDef => {
    const resolve = keyResolver(ctx, label, key, tree);
    return {
      kind: 'method',
      name,
      lookups: ['n'],
      valueType: key === 'id' ? 'integer' : 'string',
      apply: async (values, lookup) => {
        const found = await resolve(values);
        const ids: number[] = [];
        for (const v of values) {
          const hit = found.get(v);
          if (!hit) throw new ValidationError({ [lookup ? `${name}__${lookup}` : name]: [`Select a valid choice. ${v} is not one of the available choices.`] });
          ids.push(...hit);
        }
        const exists = reach(match(ids));
        return excludedBy(lookup, exists);
      },
    };
  };
  const bySite = (ids: number[]) => sql`ct.site_id = ANY(${ids}::bigint[])`;
  // the site's region or group, from this service's projection of sites (their stored values)
  const siteVia = (key: 'region' | 'group') => (ids: number[]) =>
    sql`ct.site_id IN (SELECT s.id FROM ${sites} s WHERE NOT s.deleted AND (s.data->>${key})::bigint = ANY(${ids}::bigint[]))`;
  const filters = [
    filter('region_id', 'dcim.region', 'id', true, siteVia('region')),
    filter('region', 'dcim.region', 'slug', true, siteVia('region')),
    filter('site_group_id', 'dcim.sitegroup', 'id', true, siteVia('group')),
    filter('site_group', 'dcim.sitegroup', 'slug', true, siteVia('group')),
    filter('site_id', 'dcim.site', 'id', false, bySite),
    filter('site', 'dcim.site', 'slug', false, bySite),
  ];
  if (withNetwork) {
    filters.push(filter('provider_network_id', 'circuits.providernetwork', 'id', false, (ids) => sql`ct.provider_network_id = ANY(${ids}::bigint[])`));
  }
  return filters;
}

/** `EXISTS` over the terminations of a circuit row `t`. */
export function circuitReach(ctx: ServiceContext): (match: Sql) => Sql {
  const terminations = raw(ctx.db.table('circuit_termination'));
  return (match) => sql`EXISTS (SELECT 1 FROM ${terminations} ct WHERE ct.circuit_id = t.id AND ${match})`;
}

/** `EXISTS` over the terminations of the circuits of a provider row `t`. */
export function providerReach(ctx: ServiceContext): (match: Sql) => Sql {
  const terminations = raw(ctx.db.table('circuit_termination'));
  const circuits = raw(ctx.db.table('circuit'));
  return (match) => sql`EXISTS (SELECT 1 FROM ${terminations} ct JOIN ${circuits} c ON c.id = ct.circuit_id WHERE c.provider_id = t.id AND ${match})`;
}
