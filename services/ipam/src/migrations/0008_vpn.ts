import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): NetBox 3.7's vpn
 * app, served by ipam (decision 028): IKE and IPSec proposals, policies and
 * profiles, tunnel groups, tunnels and their terminations, L2VPNs and their
 * terminations, with their many-to-many tables (policies' proposals, L2VPNs'
 * route targets). Captured with libs/testkit/src/initial-ddl.ts (only the
 * statements that are new). Never edit it and never import the declarations
 * here; add a migration.
 */
export function vpnStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE TABLE IF NOT EXISTS ${s}."ike_proposal" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "description" VARCHAR(200) NOT NULL DEFAULT '', "authentication_method" VARCHAR(50) NOT NULL, "encryption_algorithm" VARCHAR(50) NOT NULL, "authentication_algorithm" VARCHAR(50) NOT NULL DEFAULT '', "group" INTEGER NOT NULL, "sa_lifetime" INTEGER, "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE TABLE IF NOT EXISTS ${s}."ike_policy" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "description" VARCHAR(200) NOT NULL DEFAULT '', "version" INTEGER, "mode" VARCHAR(50) NOT NULL DEFAULT '', "preshared_key" TEXT NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE TABLE IF NOT EXISTS ${s}."ipsec_proposal" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "description" VARCHAR(200) NOT NULL DEFAULT '', "encryption_algorithm" VARCHAR(50) NOT NULL DEFAULT '', "authentication_algorithm" VARCHAR(50) NOT NULL DEFAULT '', "sa_lifetime_seconds" INTEGER, "sa_lifetime_data" INTEGER, "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE TABLE IF NOT EXISTS ${s}."ipsec_policy" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "description" VARCHAR(200) NOT NULL DEFAULT '', "pfs_group" INTEGER, "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE TABLE IF NOT EXISTS ${s}."ipsec_profile" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "description" VARCHAR(200) NOT NULL DEFAULT '', "mode" VARCHAR(50) NOT NULL, "ike_policy_id" BIGINT NOT NULL REFERENCES ${s}."ike_policy" ("id") ON DELETE RESTRICT, "ipsec_policy_id" BIGINT NOT NULL REFERENCES ${s}."ipsec_policy" ("id") ON DELETE RESTRICT, "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "ipsec_profile_ike_policy_id_idx" ON ${s}."ipsec_profile" ("ike_policy_id")`,
    `CREATE INDEX "ipsec_profile_ipsec_policy_id_idx" ON ${s}."ipsec_profile" ("ipsec_policy_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."tunnel_group" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "description" VARCHAR(200) NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE TABLE IF NOT EXISTS ${s}."tunnel" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "status" VARCHAR(50), "group_id" BIGINT REFERENCES ${s}."tunnel_group" ("id") ON DELETE RESTRICT, "encapsulation" VARCHAR(50) NOT NULL, "ipsec_profile_id" BIGINT REFERENCES ${s}."ipsec_profile" ("id") ON DELETE RESTRICT, "tenant_id" BIGINT, "tunnel_id" BIGINT, "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "tunnel_group_id_idx" ON ${s}."tunnel" ("group_id")`,
    `CREATE INDEX "tunnel_ipsec_profile_id_idx" ON ${s}."tunnel" ("ipsec_profile_id")`,
    `CREATE INDEX "tunnel_tenant_id_idx" ON ${s}."tunnel" ("tenant_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."tunnel_termination" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "tunnel_id" BIGINT NOT NULL REFERENCES ${s}."tunnel" ("id") ON DELETE CASCADE, "role" VARCHAR(50), "termination_type" VARCHAR(100) NOT NULL, "termination_id" BIGINT, "outside_ip_id" BIGINT REFERENCES ${s}."ip_address" ("id") ON DELETE RESTRICT, "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "tunnel_termination_tunnel_id_idx" ON ${s}."tunnel_termination" ("tunnel_id")`,
    `CREATE INDEX "tunnel_termination_termination_type_termination_id_idx" ON ${s}."tunnel_termination" ("termination_type", "termination_id")`,
    `CREATE INDEX "tunnel_termination_outside_ip_id_idx" ON ${s}."tunnel_termination" ("outside_ip_id")`,
    `CREATE UNIQUE INDEX "tunnel_termination_termination_type_termination_id_uniq" ON ${s}."tunnel_termination" ("termination_type", "termination_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."l2vpn" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "identifier" BIGINT, "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "type" VARCHAR(50) NOT NULL, "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "tenant_id" BIGINT, "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "l2vpn_tenant_id_idx" ON ${s}."l2vpn" ("tenant_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."l2vpn_termination" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "l2vpn_id" BIGINT NOT NULL REFERENCES ${s}."l2vpn" ("id") ON DELETE CASCADE, "assigned_object_type" VARCHAR(100) NOT NULL, "assigned_object_id" BIGINT NOT NULL, "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "l2vpn_termination_l2vpn_id_idx" ON ${s}."l2vpn_termination" ("l2vpn_id")`,
    `CREATE INDEX "l2vpn_termination_assigned_object_type_assigned_object_id_idx" ON ${s}."l2vpn_termination" ("assigned_object_type", "assigned_object_id")`,
    `CREATE UNIQUE INDEX "l2vpn_termination_assigned_object_type_assigned_object_id_uniq" ON ${s}."l2vpn_termination" ("assigned_object_type", "assigned_object_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."ike_policy_proposals" ("id"  BIGSERIAL , "owner_id" BIGINT NOT NULL REFERENCES ${s}."ike_policy" ("id") ON DELETE CASCADE, "target_id" BIGINT NOT NULL REFERENCES ${s}."ike_proposal" ("id") ON DELETE CASCADE, PRIMARY KEY ("id"))`,
    `CREATE UNIQUE INDEX "ike_policy_proposals_owner_id_target_id_uniq" ON ${s}."ike_policy_proposals" ("owner_id", "target_id")`,
    `CREATE INDEX "ike_policy_proposals_target_id_idx" ON ${s}."ike_policy_proposals" ("target_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."ipsec_policy_proposals" ("id"  BIGSERIAL , "owner_id" BIGINT NOT NULL REFERENCES ${s}."ipsec_policy" ("id") ON DELETE CASCADE, "target_id" BIGINT NOT NULL REFERENCES ${s}."ipsec_proposal" ("id") ON DELETE CASCADE, PRIMARY KEY ("id"))`,
    `CREATE UNIQUE INDEX "ipsec_policy_proposals_owner_id_target_id_uniq" ON ${s}."ipsec_policy_proposals" ("owner_id", "target_id")`,
    `CREATE INDEX "ipsec_policy_proposals_target_id_idx" ON ${s}."ipsec_policy_proposals" ("target_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."l2vpn_import_targets" ("id"  BIGSERIAL , "owner_id" BIGINT NOT NULL REFERENCES ${s}."l2vpn" ("id") ON DELETE CASCADE, "target_id" BIGINT NOT NULL REFERENCES ${s}."route_target" ("id") ON DELETE CASCADE, PRIMARY KEY ("id"))`,
    `CREATE UNIQUE INDEX "l2vpn_import_targets_owner_id_target_id_uniq" ON ${s}."l2vpn_import_targets" ("owner_id", "target_id")`,
    `CREATE INDEX "l2vpn_import_targets_target_id_idx" ON ${s}."l2vpn_import_targets" ("target_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."l2vpn_export_targets" ("id"  BIGSERIAL , "owner_id" BIGINT NOT NULL REFERENCES ${s}."l2vpn" ("id") ON DELETE CASCADE, "target_id" BIGINT NOT NULL REFERENCES ${s}."route_target" ("id") ON DELETE CASCADE, PRIMARY KEY ("id"))`,
    `CREATE UNIQUE INDEX "l2vpn_export_targets_owner_id_target_id_uniq" ON ${s}."l2vpn_export_targets" ("owner_id", "target_id")`,
    `CREATE INDEX "l2vpn_export_targets_target_id_idx" ON ${s}."l2vpn_export_targets" ("target_id")`,
  ];
}

export const vpn: Migration = {
  name: '0008_vpn',
  up: ({ qi, schema }) => runStatements(qi, vpnStatements(schema)),
};
