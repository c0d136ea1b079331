import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): NetBox 3.7's
 * wireless app, served by dcim (decision 028): wireless LAN groups, wireless
 * LANs and wireless links, an interface's wireless link and its wireless
 * LANs. Never edit it and never import the declarations here; add a migration.
 */
export function wirelessStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE TABLE ${s}."wireless_lan_group" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "parent_id" BIGINT REFERENCES ${s}."wireless_lan_group" ("id") ON DELETE CASCADE,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "_depth" INTEGER NOT NULL DEFAULT 0,
      "_path" BIGINT[] NOT NULL DEFAULT ARRAY[]::BIGINT[],
      "_tree_sort" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "wireless_lan_group_parent_id_idx" ON ${s}."wireless_lan_group" ("parent_id")`,
    `CREATE INDEX "wireless_lan_group__path_idx" ON ${s}."wireless_lan_group" USING GIN ("_path")`,
    `CREATE UNIQUE INDEX "wireless_lan_group_parent_id_name_uniq" ON ${s}."wireless_lan_group" ("parent_id", "name")`,
    `CREATE TABLE ${s}."wireless_lan" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "ssid" VARCHAR(32) NOT NULL DEFAULT '',
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "group_id" BIGINT REFERENCES ${s}."wireless_lan_group" ("id") ON DELETE SET NULL,
      "status" VARCHAR(50) NOT NULL,
      "vlan_id" BIGINT,
      "tenant_id" BIGINT,
      "auth_type" VARCHAR(50) NOT NULL DEFAULT '',
      "auth_cipher" VARCHAR(50) NOT NULL DEFAULT '',
      "auth_psk" VARCHAR(64) NOT NULL DEFAULT '',
      "comments" TEXT NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "wireless_lan_group_id_idx" ON ${s}."wireless_lan" ("group_id")`,
    `CREATE INDEX "wireless_lan_vlan_id_idx" ON ${s}."wireless_lan" ("vlan_id")`,
    `CREATE INDEX "wireless_lan_tenant_id_idx" ON ${s}."wireless_lan" ("tenant_id")`,
    `CREATE TABLE ${s}."wireless_link" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "interface_a_id" BIGINT NOT NULL REFERENCES ${s}."interface" ("id") ON DELETE RESTRICT,
      "interface_b_id" BIGINT NOT NULL REFERENCES ${s}."interface" ("id") ON DELETE RESTRICT,
      "ssid" VARCHAR(32) NOT NULL DEFAULT '',
      "status" VARCHAR(50) NOT NULL,
      "tenant_id" BIGINT,
      "auth_type" VARCHAR(50) NOT NULL DEFAULT '',
      "auth_cipher" VARCHAR(50) NOT NULL DEFAULT '',
      "auth_psk" VARCHAR(64) NOT NULL DEFAULT '',
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "comments" TEXT NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "wireless_link_interface_a_id_idx" ON ${s}."wireless_link" ("interface_a_id")`,
    `CREATE INDEX "wireless_link_interface_b_id_idx" ON ${s}."wireless_link" ("interface_b_id")`,
    `CREATE INDEX "wireless_link_tenant_id_idx" ON ${s}."wireless_link" ("tenant_id")`,
    `CREATE UNIQUE INDEX "wireless_link_interface_a_id_interface_b_id_uniq" ON ${s}."wireless_link" ("interface_a_id", "interface_b_id")`,
    // the interface's wireless link (NetBox's Interface.wireless_link, SET_NULL)
    `ALTER TABLE ${s}."interface" ADD COLUMN "wireless_link_id" BIGINT`,
    `ALTER TABLE ${s}."interface" ADD CONSTRAINT "interface_wireless_link_id_fkey" FOREIGN KEY ("wireless_link_id")
      REFERENCES ${s}."wireless_link" ("id") ON DELETE SET NULL`,
    `CREATE INDEX "interface_wireless_link_id_idx" ON ${s}."interface" ("wireless_link_id")`,
    // the interface's wireless LANs (NetBox's Interface.wireless_lans)
    `CREATE TABLE ${s}."interface_wireless_lans" (
      "id" BIGSERIAL,
      "owner_id" BIGINT NOT NULL REFERENCES ${s}."interface" ("id") ON DELETE CASCADE,
      "target_id" BIGINT NOT NULL REFERENCES ${s}."wireless_lan" ("id") ON DELETE CASCADE,
      PRIMARY KEY ("id")
    )`,
    `CREATE UNIQUE INDEX "interface_wireless_lans_owner_id_target_id_uniq" ON ${s}."interface_wireless_lans" ("owner_id", "target_id")`,
    `CREATE INDEX "interface_wireless_lans_target_id_idx" ON ${s}."interface_wireless_lans" ("target_id")`,
  ];
}

export const wireless: Migration = {
  name: '0009_wireless',
  up: ({ qi, schema }) => runStatements(qi, wirelessStatements(schema)),
};
