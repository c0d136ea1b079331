import { bootStack, runModelContract, type Stack } from '@inventory/testkit';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras, extrasModels } from '@inventory/extras';

let stack: Stack;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy });
});
afterAll(() => stack?.stop());

runModelContract('tag', {
  stack: () => stack,
  service: 'extras',
  model: extrasModels.tag,
  path: '/api/extras/tags/',
  schema: 'Tag',
  make: (i) => ({ name: `Tag ${i}`, slug: `tag-${i}`, color: i % 2 ? 'ff0000' : '00ff00' }),
  patch: { description: 'patched', color: 'aabbcc' },
  badPatch: { color: 'red' },
  invalid: [
    { body: { name: 'bad color', slug: 'bad-color', color: '#ff0000' }, field: 'color' },
    { body: { name: 'no slug' }, field: 'slug' },
    { body: { name: 'bad types', slug: 'bad-types', object_types: ['nope.nope'] }, field: 'object_types' },
  ],
  brief: ['name', 'slug', 'color'],
  filters: [{ query: (o) => `color=${o[0].color}`, expect: (o) => o.filter((x) => x.color === o[0].color) }],
});

runModelContract('custom field choice set', {
  stack: () => stack,
  service: 'extras',
  model: extrasModels.choiceSet,
  path: '/api/extras/custom-field-choice-sets/',
  schema: 'CustomFieldChoiceSet',
  make: (i) => ({ name: `Set ${i}`, extra_choices: [['a', 'A'], ['b', 'B']] }),
  patch: { description: 'patched' },
  badPatch: { extra_choices: 'nope' },
  invalid: [
    { body: { name: 'empty', extra_choices: [] }, field: '__all__' },
    { body: { name: 'no choices' }, field: 'extra_choices' },
  ],
  brief: ['name', 'choices_count'],
});

runModelContract('custom field', {
  stack: () => stack,
  service: 'extras',
  model: extrasModels.customField,
  path: '/api/extras/custom-fields/',
  schema: 'CustomField',
  make: (i) => ({ name: `field_${i}`, content_types: ['dcim.site'], type: 'integer', validation_minimum: 1, default: 5 }),
  patch: { label: 'Patched', weight: 50 },
  badPatch: { filter_logic: 'fuzzy' },
  invalid: [
    { body: { name: 'bad-name', content_types: ['dcim.site'] }, field: 'name' },
    { body: { name: 'double__under', content_types: ['dcim.site'] }, field: 'name' },
    { body: { name: 'min_on_text', content_types: ['dcim.site'], type: 'text', validation_minimum: 3 }, field: 'validation_minimum' },
    { body: { name: 'select_no_set', content_types: ['dcim.site'], type: 'select' }, field: 'choice_set' },
    { body: { name: 'obj_no_type', content_types: ['dcim.site'], type: 'object' }, field: 'object_type' },
    { body: { name: 'bad_default', content_types: ['dcim.site'], type: 'integer', default: 'x' }, field: 'default' },
    { body: { name: 'no_types' }, field: 'content_types' },
  ],
  brief: ['name', 'description'],
  choices: ['type', 'filter_logic'],
});
