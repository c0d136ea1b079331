import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): ASNs and ASN
 * ranges, VLAN groups and VLANs, FHRP groups and their assignments, service
 * templates and services. Captured with libs/testkit/src/initial-ddl.ts (only
 * the statements that are new). Never edit it and never import the
 * declarations here; add a migration.
 */
export function vlansAsnsServicesStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE TABLE IF NOT EXISTS ${s}."asn" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "asn" BIGINT NOT NULL UNIQUE, "rir_id" BIGINT NOT NULL REFERENCES ${s}."rir" ("id") ON DELETE RESTRICT, "tenant_id" BIGINT, "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "asn_rir_id_idx" ON ${s}."asn" ("rir_id")`,
    `CREATE INDEX "asn_tenant_id_idx" ON ${s}."asn" ("tenant_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."asn_range" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "rir_id" BIGINT NOT NULL REFERENCES ${s}."rir" ("id") ON DELETE RESTRICT, "start" BIGINT NOT NULL, "end" BIGINT NOT NULL, "tenant_id" BIGINT, "description" VARCHAR(200) NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "asn_range_rir_id_idx" ON ${s}."asn_range" ("rir_id")`,
    `CREATE INDEX "asn_range_tenant_id_idx" ON ${s}."asn_range" ("tenant_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."vlan_group" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(100) NOT NULL DEFAULT '', "slug" VARCHAR(100) NOT NULL DEFAULT '', "scope_type" VARCHAR(100), "scope_id" BIGINT, "min_vid" INTEGER, "max_vid" INTEGER, "description" VARCHAR(200) NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "vlan_group_scope_type_scope_id_idx" ON ${s}."vlan_group" ("scope_type", "scope_id")`,
    `CREATE UNIQUE INDEX "vlan_group_scope_type_scope_id_name_uniq" ON ${s}."vlan_group" ("scope_type", "scope_id", "name")`,
    `CREATE UNIQUE INDEX "vlan_group_scope_type_scope_id_slug_uniq" ON ${s}."vlan_group" ("scope_type", "scope_id", "slug")`,
    `CREATE TABLE IF NOT EXISTS ${s}."vlan" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "site_id" BIGINT, "group_id" BIGINT REFERENCES ${s}."vlan_group" ("id") ON DELETE RESTRICT, "vid" INTEGER NOT NULL, "name" VARCHAR(64) NOT NULL DEFAULT '', "tenant_id" BIGINT, "status" INTEGER, "role_id" BIGINT REFERENCES ${s}."role" ("id") ON DELETE SET NULL, "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "vlan_site_id_idx" ON ${s}."vlan" ("site_id")`,
    `CREATE INDEX "vlan_group_id_idx" ON ${s}."vlan" ("group_id")`,
    `CREATE INDEX "vlan_tenant_id_idx" ON ${s}."vlan" ("tenant_id")`,
    `CREATE INDEX "vlan_role_id_idx" ON ${s}."vlan" ("role_id")`,
    `CREATE UNIQUE INDEX "vlan_group_id_vid_uniq" ON ${s}."vlan" ("group_id", "vid")`,
    `CREATE UNIQUE INDEX "vlan_group_id_name_uniq" ON ${s}."vlan" ("group_id", "name")`,
    `CREATE TABLE IF NOT EXISTS ${s}."fhrp_group" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(100) NOT NULL DEFAULT '', "protocol" VARCHAR(50) NOT NULL, "group_id" INTEGER NOT NULL, "auth_type" VARCHAR(50) NOT NULL DEFAULT '', "auth_key" VARCHAR(255) NOT NULL DEFAULT '', "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE TABLE IF NOT EXISTS ${s}."fhrp_group_assignment" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "group_id" BIGINT NOT NULL REFERENCES ${s}."fhrp_group" ("id") ON DELETE CASCADE, "interface_type" VARCHAR(100) NOT NULL, "interface_id" BIGINT NOT NULL, "priority" INTEGER NOT NULL, "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "fhrp_group_assignment_group_id_idx" ON ${s}."fhrp_group_assignment" ("group_id")`,
    `CREATE INDEX "fhrp_group_assignment_interface_type_interface_id_idx" ON ${s}."fhrp_group_assignment" ("interface_type", "interface_id")`,
    `CREATE UNIQUE INDEX "fhrp_group_assignment_interface_type_interface_id_group_id_uniq" ON ${s}."fhrp_group_assignment" ("interface_type", "interface_id", "group_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."service_template" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "ports" BIGINT[] NOT NULL, "protocol" VARCHAR(50) NOT NULL, "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE TABLE IF NOT EXISTS ${s}."service" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "device_id" BIGINT, "virtual_machine_id" BIGINT, "name" VARCHAR(100) NOT NULL DEFAULT '', "ports" BIGINT[] NOT NULL, "protocol" VARCHAR(50) NOT NULL, "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "service_device_id_idx" ON ${s}."service" ("device_id")`,
    `CREATE INDEX "service_virtual_machine_id_idx" ON ${s}."service" ("virtual_machine_id")`,
  ];
}

export const vlansAsnsServices: Migration = {
  name: '0003_vlans_asns_services',
  up: ({ qi, schema }) => runStatements(qi, vlansAsnsServicesStatements(schema)),
};
