import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: names every index after its table and columns
 * (`<table>_<columns>_idx`, `…_uniq`, see `objectName` in libs/rest/src/model/schema.ts)
 * instead of unique-rule positions, the schema name or Sequelize's collision-prone
 * `<table>_<column>`. Never edit it; add a migration.
 */
export function indexNameStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `ALTER INDEX ${s}."${schema}_tagged_uniq" RENAME TO "_tagged_item_content_type_object_id_tag_id_uniq"`,
    `ALTER INDEX ${s}."tagged_item_tag_id" RENAME TO "_tagged_item_tag_id_idx"`,
    `ALTER INDEX ${s}."custom_field_choice_set_id" RENAME TO "custom_field_choice_set_id_idx"`,
  ];
}

export const indexNames: Migration = {
  name: '0002_index_names',
  up: ({ qi, schema }) => runStatements(qi, indexNameStatements(schema)),
};
