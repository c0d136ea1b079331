import { contentType } from '@inventory/refs';
import type { ModelDef } from '../model';

/**
 * GraphQL names, each a function of the content-type label alone (and the
 * catalogue's verbose name): every service and the gateway name another
 * service's type the same way without knowing its declaration, which is what
 * type merging keys on. Root fields follow NetBox 3.7's
 * `netbox/*\/graphql/schema.py` (`ip_address`, `ip_address_list`,
 * `vm_interface`); type names drop NetBox's `Type` suffix (`IPAddress`).
 */

/** Where the verbose name alone is ambiguous or NetBox names it otherwise. */
const OVERRIDES: Record<string, { type: string; field: string; plural: string }> = {
  'virtualization.vminterface': { type: 'VMInterface', field: 'vm_interface', plural: 'vm_interfaces' },
};

function verboseOf(label: string): string {
  const ct = contentType(label);
  return ct ? ct.verbose_name : label.split('.')[1];
}

/** `IP address` → `IPAddress`, `custom field choice set` → `CustomFieldChoiceSet`. */
export function typeName(label: string): string {
  const o = OVERRIDES[label];
  if (o) return o.type;
  return verboseOf(label)
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
}

/** `IP address` → `ip_address`: the single-object root field, `<name>_list` and `<name>_count` beside it. */
export function rootName(label: string): string {
  const o = OVERRIDES[label];
  if (o) return o.field;
  return snake(verboseOf(label));
}

/** The reverse relation a child model adds to what it points at (`sites`, `ip_addresses`): NetBox's related names. */
export function pluralName(model: ModelDef): string {
  const o = OVERRIDES[model.label];
  if (o) return o.plural;
  return snake(model.verboseNamePlural ?? `${model.verboseName}s`);
}

function snake(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
}

/** Root field resolving objects of a type by id, batched: the key type merging calls. */
export const byIdField = (label: string): string => `_${typeName(label)}_by_id`;

/** A GraphQL name may hold letters, digits and `_` only (a filter name outside that cannot be an argument). */
export const isGraphqlName = (name: string): boolean => /^[_A-Za-z][_0-9A-Za-z]*$/.test(name);
