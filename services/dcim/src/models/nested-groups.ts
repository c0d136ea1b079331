import type { UniqueDef } from '@inventory/rest';

/**
 * The unique rules of NetBox's nested groups (regions, site groups): name and
 * slug unique among siblings, and among top-level nodes (where the parent is
 * null, which the (parent, ...) rules cannot see). Django's texts: the
 * sibling rules' generic message, the top-level rules' own.
 */
export function nestedGroupUnique(verboseName: string): UniqueDef[] {
  const model = verboseName.charAt(0).toUpperCase() + verboseName.slice(1);
  return [
    { fields: ['parent', 'name'], message: `${model} with this Parent and Name already exists.` },
    { fields: ['name'], whenNull: ['parent'], message: `A top-level ${verboseName} with this name already exists.` },
    { fields: ['parent', 'slug'], message: `${model} with this Parent and Slug already exists.` },
    { fields: ['slug'], whenNull: ['parent'], message: `A top-level ${verboseName} with this slug already exists.` },
  ];
}
