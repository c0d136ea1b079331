import { defineModel, f } from '@inventory/rest';

/** A tree model the engine's unit tests declare their other models around. */
export const group = defineModel({
  label: 'demo.group',
  endpoint: 'groups',
  verboseName: 'group',
  fields: { name: f.name(50, { unique: true }), parent: f.fk('demo.group', 'CASCADE', { nullable: true }) },
  tree: true,
  brief: ['name'],
  display: (r) => String(r.name),
  ordering: ['_tree'],
});
