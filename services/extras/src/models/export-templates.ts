import { ValidationError } from '@inventory/core';
import { contentType } from '@inventory/refs';
import { contentTypesIdFilter, defineModel, f, type ModelDef } from '@inventory/rest';
import { syncedBeforeSave, syncedData, syncedDataFilters, templateCode } from '../data/synced';

/** Any model with a list endpoint can be exported (NetBox's ExportTemplatesMixin is on nearly every model). */
const exportable = (label: string) => !!contentType(label)?.endpoint && !label.startsWith('contenttypes.');

/**
 * Export templates (NetBox's extras.ExportTemplate, spec C.10): Jinja code
 * that any list of the chosen types renders with `?export=<name>`
 * (libs/rest read/export.ts; every service reads them from its projection).
 * Its code may come from a data file (data/synced.ts).
 */
export const exportTemplate: ModelDef = defineModel({
  label: 'extras.exporttemplate',
  endpoint: 'export-templates',
  table: 'export_template',
  verboseName: 'export template',
  fields: {
    content_types: f.contentTypes({ required: true, allowed: exportable }),
    name: f.name(100),
    description: f.description(),
    template_code: f.text({
      required: true,
      help: 'Jinja2 template code. The list of objects being exported is passed as a context variable named <code>queryset</code>.',
    }),
    mime_type: f.string(50, { label: 'MIME type', help: 'Defaults to <code>text/plain; charset=utf-8</code>' }),
    file_extension: f.string(15, { help: 'Extension to append to the rendered filename' }),
    as_attachment: f.boolean(true, { help: 'Download file as attachment' }),
    ...syncedData(),
  },
  tags: false,
  customFields: false,
  brief: ['name'],
  display: (r) => String(r.name),
  ordering: ['name'],
  search: ['name', 'description'],
  filters: (ctx) => [contentTypesIdFilter(), ...syncedDataFilters(ctx)],
  hooks: {
    validate(row) {
      // the UI's `?export=table` is the table itself
      if (String(row.name).toLowerCase() === 'table') throw ValidationError.field('name', `"${String(row.name)}" is a reserved name. Please choose a different name.`);
    },
    beforeSave: syncedBeforeSave(templateCode),
  },
});
