import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): inventory item
 * roles, items and templates, virtual device contexts, and the config
 * template of platforms and device roles (extras' config templates).
 * Never edit it and never import the declarations here; add a migration.
 */
export function inventoryStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE TABLE ${s}."inventory_item_role" ("id" BIGSERIAL, "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "color" VARCHAR(6), "description" VARCHAR(200) NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE TABLE ${s}."inventory_item" ("id" BIGSERIAL, "_version" BIGINT NOT NULL DEFAULT 1, "device_id" BIGINT NOT NULL REFERENCES ${s}."device" ("id") ON DELETE CASCADE, "parent_id" BIGINT REFERENCES ${s}."inventory_item" ("id") ON DELETE CASCADE, "name" VARCHAR(64) NOT NULL DEFAULT '', "_name" VARCHAR(100) NOT NULL DEFAULT '', "label" VARCHAR(64) NOT NULL DEFAULT '', "status" VARCHAR(50) NOT NULL, "role_id" BIGINT REFERENCES ${s}."inventory_item_role" ("id") ON DELETE SET NULL, "manufacturer_id" BIGINT REFERENCES ${s}."manufacturer" ("id") ON DELETE SET NULL, "part_id" VARCHAR(50) NOT NULL DEFAULT '', "serial" VARCHAR(50) NOT NULL DEFAULT '', "asset_tag" VARCHAR(50) UNIQUE, "discovered" BOOLEAN, "description" VARCHAR(200) NOT NULL DEFAULT '', "component_type" VARCHAR(100), "component_id" INTEGER, "_depth" INTEGER NOT NULL DEFAULT 0, "_path" BIGINT[] NOT NULL DEFAULT ARRAY[]::BIGINT[], "_tree_sort" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[], "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "inventory_item_device_id_idx" ON ${s}."inventory_item" ("device_id")`,
    `CREATE INDEX "inventory_item_parent_id_idx" ON ${s}."inventory_item" ("parent_id")`,
    `CREATE INDEX "inventory_item_role_id_idx" ON ${s}."inventory_item" ("role_id")`,
    `CREATE INDEX "inventory_item_manufacturer_id_idx" ON ${s}."inventory_item" ("manufacturer_id")`,
    `CREATE INDEX "inventory_item_component_type_component_id_idx" ON ${s}."inventory_item" ("component_type", "component_id")`,
    `CREATE INDEX "inventory_item__path_idx" ON ${s}."inventory_item" USING GIN ("_path")`,
    `CREATE INDEX "inventory_item__name_idx" ON ${s}."inventory_item" ("_name")`,
    `CREATE UNIQUE INDEX "inventory_item_device_id_parent_id_name_uniq" ON ${s}."inventory_item" ("device_id", "parent_id", "name")`,
    `CREATE TABLE ${s}."inventory_item_template" ("id" BIGSERIAL, "_version" BIGINT NOT NULL DEFAULT 1, "device_type_id" BIGINT NOT NULL REFERENCES ${s}."device_type" ("id") ON DELETE CASCADE, "parent_id" BIGINT REFERENCES ${s}."inventory_item_template" ("id") ON DELETE CASCADE, "name" VARCHAR(64) NOT NULL DEFAULT '', "_name" VARCHAR(100) NOT NULL DEFAULT '', "label" VARCHAR(64) NOT NULL DEFAULT '', "role_id" BIGINT REFERENCES ${s}."inventory_item_role" ("id") ON DELETE SET NULL, "manufacturer_id" BIGINT REFERENCES ${s}."manufacturer" ("id") ON DELETE SET NULL, "part_id" VARCHAR(50) NOT NULL DEFAULT '', "description" VARCHAR(200) NOT NULL DEFAULT '', "component_type" VARCHAR(100), "component_id" INTEGER, "_depth" INTEGER NOT NULL DEFAULT 0, "_path" BIGINT[] NOT NULL DEFAULT ARRAY[]::BIGINT[], "_tree_sort" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[], "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "inventory_item_template_device_type_id_idx" ON ${s}."inventory_item_template" ("device_type_id")`,
    `CREATE INDEX "inventory_item_template_parent_id_idx" ON ${s}."inventory_item_template" ("parent_id")`,
    `CREATE INDEX "inventory_item_template_role_id_idx" ON ${s}."inventory_item_template" ("role_id")`,
    `CREATE INDEX "inventory_item_template_manufacturer_id_idx" ON ${s}."inventory_item_template" ("manufacturer_id")`,
    `CREATE INDEX "inventory_item_template_component_type_component_id_idx" ON ${s}."inventory_item_template" ("component_type", "component_id")`,
    `CREATE INDEX "inventory_item_template__path_idx" ON ${s}."inventory_item_template" USING GIN ("_path")`,
    `CREATE INDEX "inventory_item_template__name_idx" ON ${s}."inventory_item_template" ("_name")`,
    `CREATE UNIQUE INDEX "inventory_item_template_device_type_id_parent_id_name_uniq" ON ${s}."inventory_item_template" ("device_type_id", "parent_id", "name")`,
    `CREATE TABLE ${s}."virtual_device_context" ("id" BIGSERIAL, "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(64) NOT NULL DEFAULT '', "device_id" BIGINT NOT NULL REFERENCES ${s}."device" ("id") ON DELETE RESTRICT, "identifier" INTEGER, "tenant_id" BIGINT, "primary_ip4_id" BIGINT, "primary_ip6_id" BIGINT, "status" VARCHAR(50) NOT NULL, "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "virtual_device_context_device_id_idx" ON ${s}."virtual_device_context" ("device_id")`,
    `CREATE INDEX "virtual_device_context_tenant_id_idx" ON ${s}."virtual_device_context" ("tenant_id")`,
    `CREATE INDEX "virtual_device_context_primary_ip4_id_idx" ON ${s}."virtual_device_context" ("primary_ip4_id")`,
    `CREATE INDEX "virtual_device_context_primary_ip6_id_idx" ON ${s}."virtual_device_context" ("primary_ip6_id")`,
    `CREATE UNIQUE INDEX "virtual_device_context_device_id_identifier_uniq" ON ${s}."virtual_device_context" ("device_id", "identifier")`,
    `CREATE UNIQUE INDEX "virtual_device_context_device_id_name_uniq" ON ${s}."virtual_device_context" ("device_id", "name")`,
    `ALTER TABLE ${s}."platform" ADD COLUMN "config_template_id" BIGINT`,
    `CREATE INDEX "platform_config_template_id_idx" ON ${s}."platform" ("config_template_id")`,
    `ALTER TABLE ${s}."device_role" ADD COLUMN "config_template_id" BIGINT`,
    `CREATE INDEX "device_role_config_template_id_idx" ON ${s}."device_role" ("config_template_id")`,
  ];
}

export const inventory: Migration = {
  name: '0006_inventory_and_contexts',
  up: ({ qi, schema }) => runStatements(qi, inventoryStatements(schema)),
};
