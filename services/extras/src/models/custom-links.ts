import { contentType } from '@inventory/refs';
import { contentTypesIdFilter, defineModel, f, type ModelDef } from '@inventory/rest';

/** NetBox's CustomLinkButtonClassChoices: the button colours, and `ghost-dark` (a plain link). */
export const BUTTON_CLASSES = [
  ['outline-dark', 'Default'],
  ['blue', 'Blue'],
  ['indigo', 'Indigo'],
  ['purple', 'Purple'],
  ['pink', 'Pink'],
  ['red', 'Red'],
  ['orange', 'Orange'],
  ['yellow', 'Yellow'],
  ['green', 'Green'],
  ['teal', 'Teal'],
  ['cyan', 'Cyan'],
  ['gray', 'Gray'],
  ['black', 'Black'],
  ['white', 'White'],
  ['ghost-dark', 'Link'],
] as const;

/** Models with NetBox's full feature set (custom links among them): those with custom fields. */
const supportsCustomLinks = (label: string) => !!contentType(label)?.features.custom_fields;

/**
 * Custom links (NetBox's extras.CustomLink, spec C.10): a Jinja link text
 * and URL shown on the objects of the chosen types in NetBox's UI. Here they
 * are stored and served for clients; nothing renders them.
 */
export const customLink: ModelDef = defineModel({
  label: 'extras.customlink',
  endpoint: 'custom-links',
  table: 'custom_link',
  verboseName: 'custom link',
  fields: {
    content_types: f.contentTypes({ required: true, allowed: supportsCustomLinks }),
    name: f.name(100, { unique: true }),
    enabled: f.boolean(true),
    link_text: f.text({ required: true, help: 'Jinja2 template code for link text' }),
    link_url: f.text({ required: true, help: 'Jinja2 template code for link URL' }),
    weight: f.integer({ default: 100, min: 0, max: 32767 }),
    group_name: f.string(50, { help: 'Links with the same group will appear as a dropdown menu' }),
    // a stock DRF choice field in NetBox's serializer: the bare value
    button_class: f.choice(BUTTON_CLASSES, { default: 'outline-dark', plain: true, help: 'The class of the first link in a group will be used for the dropdown button' }),
    new_window: f.boolean(false, { help: 'Force link to open in a new window' }),
  },
  tags: false,
  customFields: false,
  brief: ['name'],
  display: (r) => String(r.name),
  ordering: ['group_name', 'weight', 'name'],
  search: ['name', 'link_text', 'link_url', 'group_name'],
  filters: () => [contentTypesIdFilter()],
});
