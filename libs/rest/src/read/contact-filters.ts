import { ValidationError } from '@inventory/core';
import { excludedBy, type FilterDef, sql } from '@inventory/filtering';
import { keyResolver } from './lookup-source';
import type { ModelDef, ServiceContext } from '../model';
import { projection } from '../projections';

/** The tenancy models NetBox's Contacts filters go through, kept by every other service whose models have contacts. */
export const CONTACT_LABELS = { assignment: 'tenancy.contactassignment', contact: 'tenancy.contact', group: 'tenancy.contactgroup' } as const;

/**
 * NetBox's Contacts filters (`contact`, `contact_role`, `contact_group` at
 * any depth) for a model whose contact assignments live in tenancy: on this
 * service's projections of the assignments, contacts and contact groups.
 */
export function projectedContactFilters(ctx: ServiceContext, model: ModelDef): FilterDef[] {
  const assignments = projection(ctx, CONTACT_LABELS.assignment);
  const contacts = projection(ctx, CONTACT_LABELS.contact);
  const via = (name: 'contact' | 'contact_role' | 'contact_group', label: string, tree: boolean): FilterDef => ({
    kind: 'method',
    name,
    lookups: ['n'],
    valueType: 'integer',
    apply: async (values, lookup) => {
      const found = await keyResolver(ctx, label, 'id', tree)(values);
      const missing = values.find((v) => !found.has(v));
      if (missing !== undefined) throw new ValidationError({ [lookup ? `${name}__${lookup}` : name]: [`Select a valid choice. ${missing} is not one of the available choices.`] });
      const ids = values.flatMap((v) => found.get(v) ?? []);
      const match =
        name === 'contact_group'
          ? sql`(ca.data->>'contact')::bigint IN (SELECT c.id FROM ${contacts} c WHERE NOT c.deleted AND (c.data->>'group')::bigint = ANY(${ids}::bigint[]))`
          : sql`(ca.data->>${name === 'contact' ? 'contact' : 'role'})::bigint = ANY(${ids}::bigint[])`;
      const exists = sql`EXISTS (SELECT 1 FROM ${assignments} ca WHERE NOT ca.deleted AND ca.data->>'content_type' = ${model.label}
        AND (ca.data->>'object_id')::bigint = t.id AND ${match})`;
      return excludedBy(lookup, exists);
    },
  });
  return [via('contact', CONTACT_LABELS.contact, false), via('contact_role', 'tenancy.contactrole', false), via('contact_group', CONTACT_LABELS.group, true)];
}
