import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): an interface's
 * virtual device contexts (NetBox's Interface.vdcs). Never edit it and never
 * import the declarations here; add a migration.
 */
export function interfaceVdcsStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE TABLE ${s}."interface_vdcs" (
      "id" BIGSERIAL,
      "owner_id" BIGINT NOT NULL REFERENCES ${s}."interface" ("id") ON DELETE CASCADE,
      "target_id" BIGINT NOT NULL REFERENCES ${s}."virtual_device_context" ("id") ON DELETE CASCADE,
      PRIMARY KEY ("id")
    )`,
    `CREATE UNIQUE INDEX "interface_vdcs_owner_id_target_id_uniq" ON ${s}."interface_vdcs" ("owner_id", "target_id")`,
    `CREATE INDEX "interface_vdcs_target_id_idx" ON ${s}."interface_vdcs" ("target_id")`,
  ];
}

export const interfaceVdcs: Migration = {
  name: '0007_interface_vdcs',
  up: ({ qi, schema }) => runStatements(qi, interfaceVdcsStatements(schema)),
};
