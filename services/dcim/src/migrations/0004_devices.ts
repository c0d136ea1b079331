import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): devices, virtual
 * chassis, module bays, device bays and modules. A device and its virtual
 * chassis name each other: the device's constraint is added once both exist.
 * Never edit it and never import the declarations here; add a migration.
 */
export function devicesStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE TABLE ${s}."device" ("id" BIGSERIAL, "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(64), "_name" VARCHAR(100) NOT NULL DEFAULT '', "device_type_id" BIGINT NOT NULL REFERENCES ${s}."device_type" ("id") ON DELETE RESTRICT, "role_id" BIGINT NOT NULL REFERENCES ${s}."device_role" ("id") ON DELETE RESTRICT, "tenant_id" BIGINT, "platform_id" BIGINT REFERENCES ${s}."platform" ("id") ON DELETE SET NULL, "serial" VARCHAR(50) NOT NULL DEFAULT '', "asset_tag" VARCHAR(50) UNIQUE, "site_id" BIGINT NOT NULL REFERENCES ${s}."site" ("id") ON DELETE RESTRICT, "location_id" BIGINT REFERENCES ${s}."location" ("id") ON DELETE RESTRICT, "rack_id" BIGINT REFERENCES ${s}."rack" ("id") ON DELETE RESTRICT, "position" DECIMAL(4,1), "face" VARCHAR(50) NOT NULL DEFAULT '', "latitude" DECIMAL(8,6), "longitude" DECIMAL(9,6), "status" VARCHAR(50) NOT NULL, "airflow" VARCHAR(50) NOT NULL DEFAULT '', "primary_ip4_id" BIGINT, "primary_ip6_id" BIGINT, "oob_ip_id" BIGINT, "cluster_id" BIGINT, "virtual_chassis_id" BIGINT, "vc_position" INTEGER, "vc_priority" INTEGER, "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "config_template_id" BIGINT, "local_context_data" JSONB, "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "device_device_type_id_idx" ON ${s}."device" ("device_type_id")`,
    `CREATE INDEX "device_role_id_idx" ON ${s}."device" ("role_id")`,
    `CREATE INDEX "device_tenant_id_idx" ON ${s}."device" ("tenant_id")`,
    `CREATE INDEX "device_platform_id_idx" ON ${s}."device" ("platform_id")`,
    `CREATE INDEX "device_site_id_idx" ON ${s}."device" ("site_id")`,
    `CREATE INDEX "device_location_id_idx" ON ${s}."device" ("location_id")`,
    `CREATE INDEX "device_rack_id_idx" ON ${s}."device" ("rack_id")`,
    `CREATE INDEX "device_primary_ip4_id_idx" ON ${s}."device" ("primary_ip4_id")`,
    `CREATE INDEX "device_primary_ip6_id_idx" ON ${s}."device" ("primary_ip6_id")`,
    `CREATE INDEX "device_oob_ip_id_idx" ON ${s}."device" ("oob_ip_id")`,
    `CREATE INDEX "device_cluster_id_idx" ON ${s}."device" ("cluster_id")`,
    `CREATE INDEX "device_virtual_chassis_id_idx" ON ${s}."device" ("virtual_chassis_id")`,
    `CREATE INDEX "device_config_template_id_idx" ON ${s}."device" ("config_template_id")`,
    `CREATE INDEX "device__name_idx" ON ${s}."device" ("_name")`,
    `CREATE UNIQUE INDEX "device_name_site_id_tenant_id_ci_uniq" ON ${s}."device" (lower("name"), "site_id", "tenant_id")`,
    `CREATE UNIQUE INDEX "device_name_site_id_ci_where_tenant_id_null_uniq" ON ${s}."device" (lower("name"), "site_id") WHERE "tenant_id" IS NULL`,
    `CREATE UNIQUE INDEX "device_rack_id_position_face_uniq" ON ${s}."device" ("rack_id", "position", "face")`,
    `CREATE UNIQUE INDEX "device_virtual_chassis_id_vc_position_uniq" ON ${s}."device" ("virtual_chassis_id", "vc_position")`,
    `CREATE TABLE ${s}."virtual_chassis" ("id" BIGSERIAL, "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(64) NOT NULL DEFAULT '', "domain" VARCHAR(30) NOT NULL DEFAULT '', "master_id" BIGINT REFERENCES ${s}."device" ("id") ON DELETE RESTRICT, "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "virtual_chassis_master_id_idx" ON ${s}."virtual_chassis" ("master_id")`,
    `CREATE TABLE ${s}."module_bay" ("id" BIGSERIAL, "_version" BIGINT NOT NULL DEFAULT 1, "device_id" BIGINT NOT NULL REFERENCES ${s}."device" ("id") ON DELETE CASCADE, "name" VARCHAR(64) NOT NULL DEFAULT '', "_name" VARCHAR(100) NOT NULL DEFAULT '', "label" VARCHAR(64) NOT NULL DEFAULT '', "position" VARCHAR(30) NOT NULL DEFAULT '', "description" VARCHAR(200) NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "module_bay_device_id_idx" ON ${s}."module_bay" ("device_id")`,
    `CREATE INDEX "module_bay__name_idx" ON ${s}."module_bay" ("_name")`,
    `CREATE UNIQUE INDEX "module_bay_device_id_name_uniq" ON ${s}."module_bay" ("device_id", "name")`,
    `CREATE TABLE ${s}."device_bay" ("id" BIGSERIAL, "_version" BIGINT NOT NULL DEFAULT 1, "device_id" BIGINT NOT NULL REFERENCES ${s}."device" ("id") ON DELETE CASCADE, "name" VARCHAR(64) NOT NULL DEFAULT '', "_name" VARCHAR(100) NOT NULL DEFAULT '', "label" VARCHAR(64) NOT NULL DEFAULT '', "description" VARCHAR(200) NOT NULL DEFAULT '', "installed_device_id" BIGINT UNIQUE REFERENCES ${s}."device" ("id") ON DELETE SET NULL, "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "device_bay_device_id_idx" ON ${s}."device_bay" ("device_id")`,
    `CREATE INDEX "device_bay_installed_device_id_idx" ON ${s}."device_bay" ("installed_device_id")`,
    `CREATE INDEX "device_bay__name_idx" ON ${s}."device_bay" ("_name")`,
    `CREATE UNIQUE INDEX "device_bay_device_id_name_uniq" ON ${s}."device_bay" ("device_id", "name")`,
    `CREATE TABLE ${s}."module" ("id" BIGSERIAL, "_version" BIGINT NOT NULL DEFAULT 1, "device_id" BIGINT NOT NULL REFERENCES ${s}."device" ("id") ON DELETE CASCADE, "module_bay_id" BIGINT NOT NULL UNIQUE REFERENCES ${s}."module_bay" ("id") ON DELETE CASCADE, "module_type_id" BIGINT NOT NULL REFERENCES ${s}."module_type" ("id") ON DELETE RESTRICT, "status" VARCHAR(50) NOT NULL, "serial" VARCHAR(50) NOT NULL DEFAULT '', "asset_tag" VARCHAR(50) UNIQUE, "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "module_device_id_idx" ON ${s}."module" ("device_id")`,
    `CREATE INDEX "module_module_bay_id_idx" ON ${s}."module" ("module_bay_id")`,
    `CREATE INDEX "module_module_type_id_idx" ON ${s}."module" ("module_type_id")`,
    `ALTER TABLE ${s}."device" ADD CONSTRAINT "device_virtual_chassis_id_fkey" FOREIGN KEY ("virtual_chassis_id") REFERENCES ${s}."virtual_chassis" ("id") ON DELETE SET NULL`,
  ];
}

export const devices: Migration = {
  name: '0004_devices',
  up: ({ qi, schema }) => runStatements(qi, devicesStatements(schema)),
};
