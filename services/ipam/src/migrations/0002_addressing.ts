import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): aggregates,
 * prefixes, IP ranges and IP addresses, with their network columns (cidr,
 * inet) GiST-indexed. Captured with libs/testkit/src/initial-ddl.ts (the new
 * statements only). Never edit it: change a declaration, then add a migration.
 */
export function addressingStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE TABLE IF NOT EXISTS ${s}."aggregate" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "prefix" CIDR NOT NULL, "rir_id" BIGINT NOT NULL REFERENCES ${s}."rir" ("id") ON DELETE RESTRICT, "tenant_id" BIGINT, "date_added" DATE, "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "aggregate_rir_id_idx" ON ${s}."aggregate" ("rir_id")`,
    `CREATE INDEX "aggregate_tenant_id_idx" ON ${s}."aggregate" ("tenant_id")`,
    `CREATE INDEX "aggregate_prefix_idx" ON ${s}."aggregate" USING GIST ("prefix" inet_ops)`,
    `CREATE TABLE IF NOT EXISTS ${s}."prefix" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "prefix" CIDR NOT NULL, "site_id" BIGINT, "vrf_id" BIGINT REFERENCES ${s}."vrf" ("id") ON DELETE RESTRICT, "tenant_id" BIGINT, "vlan_id" BIGINT, "status" VARCHAR(50), "role_id" BIGINT REFERENCES ${s}."role" ("id") ON DELETE SET NULL, "is_pool" BOOLEAN, "mark_utilized" BOOLEAN, "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "children" INTEGER, "_depth" INTEGER, "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "prefix_site_id_idx" ON ${s}."prefix" ("site_id")`,
    `CREATE INDEX "prefix_vrf_id_idx" ON ${s}."prefix" ("vrf_id")`,
    `CREATE INDEX "prefix_tenant_id_idx" ON ${s}."prefix" ("tenant_id")`,
    `CREATE INDEX "prefix_vlan_id_idx" ON ${s}."prefix" ("vlan_id")`,
    `CREATE INDEX "prefix_role_id_idx" ON ${s}."prefix" ("role_id")`,
    `CREATE INDEX "prefix_prefix_idx" ON ${s}."prefix" USING GIST ("prefix" inet_ops)`,
    `CREATE TABLE IF NOT EXISTS ${s}."ip_range" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "start_address" INET NOT NULL, "end_address" INET NOT NULL, "size" BIGINT, "vrf_id" BIGINT REFERENCES ${s}."vrf" ("id") ON DELETE RESTRICT, "tenant_id" BIGINT, "status" VARCHAR(50), "role_id" BIGINT REFERENCES ${s}."role" ("id") ON DELETE SET NULL, "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "mark_utilized" BOOLEAN, "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "ip_range_vrf_id_idx" ON ${s}."ip_range" ("vrf_id")`,
    `CREATE INDEX "ip_range_tenant_id_idx" ON ${s}."ip_range" ("tenant_id")`,
    `CREATE INDEX "ip_range_role_id_idx" ON ${s}."ip_range" ("role_id")`,
    `CREATE INDEX "ip_range_start_address_idx" ON ${s}."ip_range" USING GIST ("start_address" inet_ops)`,
    `CREATE INDEX "ip_range_end_address_idx" ON ${s}."ip_range" USING GIST ("end_address" inet_ops)`,
    `CREATE TABLE IF NOT EXISTS ${s}."ip_address" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "address" INET NOT NULL, "vrf_id" BIGINT REFERENCES ${s}."vrf" ("id") ON DELETE RESTRICT, "tenant_id" BIGINT, "status" VARCHAR(50), "role" VARCHAR(50) NOT NULL DEFAULT '', "assigned_object_type" VARCHAR(100), "assigned_object_id" BIGINT, "nat_inside_id" BIGINT REFERENCES ${s}."ip_address" ("id") ON DELETE SET NULL, "dns_name" VARCHAR(255) NOT NULL DEFAULT '', "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "ip_address_vrf_id_idx" ON ${s}."ip_address" ("vrf_id")`,
    `CREATE INDEX "ip_address_tenant_id_idx" ON ${s}."ip_address" ("tenant_id")`,
    `CREATE INDEX "ip_address_assigned_object_type_assigned_object_id_idx" ON ${s}."ip_address" ("assigned_object_type", "assigned_object_id")`,
    `CREATE INDEX "ip_address_nat_inside_id_idx" ON ${s}."ip_address" ("nat_inside_id")`,
    `CREATE INDEX "ip_address_address_idx" ON ${s}."ip_address" USING GIST ("address" inet_ops)`,
  ];
}

export const addressing: Migration = {
  name: '0002_addressing',
  up: ({ qi, schema }) => runStatements(qi, addressingStatements(schema)),
};
