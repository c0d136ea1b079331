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
    `ALTER INDEX ${s}."contact_group_id" RENAME TO "contact_group_id_idx"`,
    `ALTER INDEX ${s}."contact_unique_0" RENAME TO "contact_group_id_name_uniq"`,
    `ALTER INDEX ${s}."contact_assignment_content_type_object_id" RENAME TO "contact_assignment_content_type_object_id_idx"`,
    `ALTER INDEX ${s}."contact_assignment_contact_id" RENAME TO "contact_assignment_contact_id_idx"`,
    `ALTER INDEX ${s}."contact_assignment_role_id" RENAME TO "contact_assignment_role_id_idx"`,
    `ALTER INDEX ${s}."contact_assignment_unique_0" RENAME TO "contact_assignment_content_type_object_id_contact_dffbd9ee_uniq"`,
    `ALTER INDEX ${s}."contact_group_parent_id" RENAME TO "contact_group_parent_id_idx"`,
    `ALTER INDEX ${s}."contact_group_unique_0" RENAME TO "contact_group_parent_id_name_uniq"`,
    `ALTER INDEX ${s}."tenant_group_id" RENAME TO "tenant_group_id_idx"`,
    `ALTER INDEX ${s}."tenant_unique_0" RENAME TO "tenant_group_id_name_uniq"`,
    `ALTER INDEX ${s}."tenant_unique_1" RENAME TO "tenant_name_where_group_id_null_uniq"`,
    `ALTER INDEX ${s}."tenant_unique_2" RENAME TO "tenant_group_id_slug_uniq"`,
    `ALTER INDEX ${s}."tenant_unique_3" RENAME TO "tenant_slug_where_group_id_null_uniq"`,
    `ALTER INDEX ${s}."tenant_group_parent_id" RENAME TO "tenant_group_parent_id_idx"`,
  ];
}

export const indexNames: Migration = {
  name: '0002_index_names',
  up: ({ qi, schema }) => runStatements(qi, indexNameStatements(schema)),
};
