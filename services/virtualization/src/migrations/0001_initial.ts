import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): the virtualization
 * schema of its first release, cluster types and groups, clusters, virtual
 * machines, their interfaces and virtual disks, with the tables every service
 * has (tags, idempotency keys, the outbox, processed events). Never edit it
 * and never import the declarations here: change a declaration, then add a
 * migration; test/schema.test.ts fails until the migrations arrive at what
 * the declarations describe.
 */
export function initialStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE ${s}."cluster_type" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE TABLE ${s}."cluster_group" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    // tenant_id names a tenancy tenant and site_id a dcim site: other services' objects, so no foreign keys
    `CREATE TABLE ${s}."cluster" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '',
      "type_id" BIGINT NOT NULL REFERENCES ${s}."cluster_type" ("id") ON DELETE RESTRICT,
      "group_id" BIGINT REFERENCES ${s}."cluster_group" ("id") ON DELETE RESTRICT,
      "status" VARCHAR(50) NOT NULL,
      "tenant_id" BIGINT,
      "site_id" BIGINT,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "comments" TEXT NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "cluster_type_id_idx" ON ${s}."cluster" ("type_id")`,
    `CREATE INDEX "cluster_group_id_idx" ON ${s}."cluster" ("group_id")`,
    `CREATE INDEX "cluster_tenant_id_idx" ON ${s}."cluster" ("tenant_id")`,
    `CREATE INDEX "cluster_site_id_idx" ON ${s}."cluster" ("site_id")`,
    `CREATE UNIQUE INDEX "cluster_group_id_name_uniq" ON ${s}."cluster" ("group_id", "name")`,
    `CREATE UNIQUE INDEX "cluster_site_id_name_uniq" ON ${s}."cluster" ("site_id", "name")`,
    // site, device, role, tenant, platform and the primary addresses are dcim's, tenancy's and ipam's objects: no foreign keys
    `CREATE TABLE ${s}."virtual_machine" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(64) NOT NULL DEFAULT '',
      "_name" VARCHAR(100) NOT NULL DEFAULT '',
      "status" VARCHAR(50) NOT NULL,
      "site_id" BIGINT,
      "cluster_id" BIGINT REFERENCES ${s}."cluster" ("id") ON DELETE RESTRICT,
      "device_id" BIGINT,
      "role_id" BIGINT,
      "tenant_id" BIGINT,
      "platform_id" BIGINT,
      "primary_ip4_id" BIGINT,
      "primary_ip6_id" BIGINT,
      "vcpus" DECIMAL(6,2),
      "memory" INTEGER,
      "disk" INTEGER,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "comments" TEXT NOT NULL DEFAULT '',
      "local_context_data" JSONB,
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "virtual_machine_site_id_idx" ON ${s}."virtual_machine" ("site_id")`,
    `CREATE INDEX "virtual_machine_cluster_id_idx" ON ${s}."virtual_machine" ("cluster_id")`,
    `CREATE INDEX "virtual_machine_device_id_idx" ON ${s}."virtual_machine" ("device_id")`,
    `CREATE INDEX "virtual_machine_role_id_idx" ON ${s}."virtual_machine" ("role_id")`,
    `CREATE INDEX "virtual_machine_tenant_id_idx" ON ${s}."virtual_machine" ("tenant_id")`,
    `CREATE INDEX "virtual_machine_platform_id_idx" ON ${s}."virtual_machine" ("platform_id")`,
    `CREATE INDEX "virtual_machine_primary_ip4_id_idx" ON ${s}."virtual_machine" ("primary_ip4_id")`,
    `CREATE INDEX "virtual_machine_primary_ip6_id_idx" ON ${s}."virtual_machine" ("primary_ip6_id")`,
    `CREATE INDEX "virtual_machine__name_idx" ON ${s}."virtual_machine" ("_name")`,
    `CREATE UNIQUE INDEX "virtual_machine_name_cluster_id_tenant_id_ci_uniq" ON ${s}."virtual_machine" (lower("name"), "cluster_id", "tenant_id")`,
    `CREATE UNIQUE INDEX "virtual_machine_name_cluster_id_ci_where_tenant_id_null_uniq" ON ${s}."virtual_machine" (lower("name"), "cluster_id") WHERE "tenant_id" IS NULL`,
    // untagged_vlan_id and vrf_id name ipam's objects: no foreign keys
    `CREATE TABLE ${s}."vm_interface" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "virtual_machine_id" BIGINT NOT NULL REFERENCES ${s}."virtual_machine" ("id") ON DELETE CASCADE,
      "name" VARCHAR(64) NOT NULL DEFAULT '',
      "_name" VARCHAR(100) NOT NULL DEFAULT '',
      "enabled" BOOLEAN,
      "parent_id" BIGINT REFERENCES ${s}."vm_interface" ("id") ON DELETE RESTRICT,
      "bridge_id" BIGINT REFERENCES ${s}."vm_interface" ("id") ON DELETE SET NULL,
      "mtu" INTEGER,
      "mac_address" VARCHAR(17),
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "mode" VARCHAR(50) NOT NULL DEFAULT '',
      "untagged_vlan_id" BIGINT,
      "vrf_id" BIGINT,
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "vm_interface_virtual_machine_id_idx" ON ${s}."vm_interface" ("virtual_machine_id")`,
    `CREATE INDEX "vm_interface_parent_id_idx" ON ${s}."vm_interface" ("parent_id")`,
    `CREATE INDEX "vm_interface_bridge_id_idx" ON ${s}."vm_interface" ("bridge_id")`,
    `CREATE INDEX "vm_interface_untagged_vlan_id_idx" ON ${s}."vm_interface" ("untagged_vlan_id")`,
    `CREATE INDEX "vm_interface_vrf_id_idx" ON ${s}."vm_interface" ("vrf_id")`,
    `CREATE INDEX "vm_interface__name_idx" ON ${s}."vm_interface" ("_name")`,
    `CREATE UNIQUE INDEX "vm_interface_virtual_machine_id_name_uniq" ON ${s}."vm_interface" ("virtual_machine_id", "name")`,
    `CREATE TABLE ${s}."virtual_disk" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "virtual_machine_id" BIGINT NOT NULL REFERENCES ${s}."virtual_machine" ("id") ON DELETE CASCADE,
      "name" VARCHAR(64) NOT NULL DEFAULT '',
      "_name" VARCHAR(100) NOT NULL DEFAULT '',
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "size" INTEGER NOT NULL,
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "virtual_disk_virtual_machine_id_idx" ON ${s}."virtual_disk" ("virtual_machine_id")`,
    `CREATE INDEX "virtual_disk__name_idx" ON ${s}."virtual_disk" ("_name")`,
    `CREATE UNIQUE INDEX "virtual_disk_virtual_machine_id_name_uniq" ON ${s}."virtual_disk" ("virtual_machine_id", "name")`,
    // target_id names an ipam VLAN: another service's object, so no foreign key
    `CREATE TABLE ${s}."vm_interface_tagged_vlans" (
      "id" BIGSERIAL,
      "owner_id" BIGINT NOT NULL REFERENCES ${s}."vm_interface" ("id") ON DELETE CASCADE,
      "target_id" BIGINT NOT NULL,
      PRIMARY KEY ("id")
    )`,
    `CREATE UNIQUE INDEX "vm_interface_tagged_vlans_owner_id_target_id_uniq" ON ${s}."vm_interface_tagged_vlans" ("owner_id", "target_id")`,
    `CREATE INDEX "vm_interface_tagged_vlans_target_id_idx" ON ${s}."vm_interface_tagged_vlans" ("target_id")`,
    `CREATE TABLE ${s}."_tagged_item" (
      "id" BIGSERIAL,
      "tag_id" BIGINT NOT NULL,
      "content_type" VARCHAR(100) NOT NULL,
      "object_id" BIGINT NOT NULL,
      PRIMARY KEY ("id")
    )`,
    `CREATE UNIQUE INDEX "_tagged_item_content_type_object_id_tag_id_uniq" ON ${s}."_tagged_item" ("content_type", "object_id", "tag_id")`,
    `CREATE INDEX "_tagged_item_tag_id_idx" ON ${s}."_tagged_item" ("tag_id")`,
    `CREATE TABLE ${s}."_idempotency_key" (
      "user_id" BIGINT NOT NULL,
      "key" VARCHAR(255) NOT NULL,
      "fingerprint" CHAR(64) NOT NULL,
      "status" INTEGER,
      "object_ids" BIGINT[],
      "bulk" BOOLEAN,
      "headers" JSONB,
      "body" TEXT,
      "created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "_idempotency_key_pkey" PRIMARY KEY ("user_id", "key")
    )`,
    `CREATE INDEX "_idempotency_key_created_idx" ON ${s}."_idempotency_key" ("created")`,
    `CREATE TABLE ${s}."_outbox" (
      "seq" BIGSERIAL PRIMARY KEY,
      "id" UUID NOT NULL,
      "event" VARCHAR(10) NOT NULL,
      "model" VARCHAR(100) NOT NULL,
      "object_id" BIGINT NOT NULL,
      "version" BIGINT NOT NULL,
      "timestamp" TIMESTAMP WITH TIME ZONE NOT NULL,
      "username" VARCHAR(150) NOT NULL,
      "request_id" VARCHAR(64) NOT NULL,
      "data" JSONB,
      "snapshots" JSONB NOT NULL,
      "sent_at" TIMESTAMP WITH TIME ZONE,
      "reference" JSONB
    )`,
    `CREATE UNIQUE INDEX "_outbox_id_uniq" ON ${s}."_outbox" ("id")`,
    `CREATE INDEX "_outbox_unsent_idx" ON ${s}."_outbox" ("seq") WHERE "sent_at" IS NULL`,
    `CREATE INDEX "_outbox_request_id_idx" ON ${s}."_outbox" ("request_id")`,
    `CREATE INDEX "_outbox_sent_at_idx" ON ${s}."_outbox" ("sent_at") WHERE "sent_at" IS NOT NULL`,
    // events the consumers applied (the projections of other services' objects)
    `CREATE TABLE ${s}."_processed_event" (
      "queue" VARCHAR(100) NOT NULL,
      "event_id" UUID NOT NULL,
      "processed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "_processed_event_pkey" PRIMARY KEY ("queue", "event_id")
    )`,
    `CREATE INDEX "_processed_event_processed_at_idx" ON ${s}."_processed_event" ("processed_at")`,
  ];
}

export const initial: Migration = {
  name: '0001_initial',
  up: ({ qi, schema }) => runStatements(qi, initialStatements(schema)),
};
