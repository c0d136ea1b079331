import { CONTENT_TYPES } from '@inventory/refs';
import type { FieldDef, ModelDef } from '../model';
import { pluralName } from './names';

/**
 * Reverse relations, contributed by the model that holds the reference
 * (NetBox's related names: `site { devices }`, `interface { ip_addresses }`):
 * a foreign key, or a generic relation to each model it may name. A target
 * of another service gets them through type merging at the gateway.
 */
export interface Reverse {
  /** Field name on the target (`devices`). */
  name: string;
  child: ModelDef;
  target: string;
  /** The child's field naming the parent (`device`, `assigned_object`). */
  field: string;
  /** The child's columns naming its parent: `<fk>_id`, or a generic relation's type and id columns. */
  fk?: string;
  generic?: { typeField: string; idField: string };
}

/** The labels a generic field may name (every catalogued model when the declaration does not limit them). */
export function genericTargets(field: FieldDef): string[] {
  if (field.type !== 'generic') return [];
  return CONTENT_TYPES.map((c) => c.label).filter((l) => !field.allowed || field.allowed(l));
}

/** Reverse relations by target label; the first of a name on a target wins (NetBox names the others apart, e.g. `child_interfaces`). */
export function reverseRelations(models: ModelDef[], taken: (target: string) => Set<string>): Map<string, Reverse[]> {
  const out = new Map<string, Reverse[]>();
  const add = (r: Reverse) => {
    const names = taken(r.target);
    const list = out.get(r.target) ?? [];
    if (names.has(r.name) || list.some((x) => x.name === r.name)) return;
    list.push(r);
    out.set(r.target, list);
  };
  for (const child of models) {
    const name = pluralName(child);
    for (const [fieldName, field] of Object.entries(child.fields)) {
      if (field.type === 'fk' && !field.pk && !field.writeOnly) add({ name, child, target: field.to, field: fieldName, fk: `${fieldName}_id` });
      // a generic relation without a list of targets (a contact assignment's object) would add a field to every model: left out
      if (field.type === 'generic' && field.allowed) {
        for (const target of genericTargets(field)) add({ name, child, target, field: fieldName, generic: { typeField: field.typeField, idField: field.idField } });
      }
    }
  }
  return out;
}
