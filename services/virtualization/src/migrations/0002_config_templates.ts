import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): a virtual
 * machine's config template (extras'). Never edit it; add a migration.
 */
export function configTemplatesStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `ALTER TABLE ${s}."virtual_machine" ADD COLUMN "config_template_id" BIGINT`,
    `CREATE INDEX "virtual_machine_config_template_id_idx" ON ${s}."virtual_machine" ("config_template_id")`,
  ];
}

export const configTemplates: Migration = {
  name: '0002_config_templates',
  up: ({ qi, schema }) => runStatements(qi, configTemplatesStatements(schema)),
};
