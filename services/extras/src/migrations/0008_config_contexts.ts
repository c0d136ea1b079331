import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: config contexts (with a link table per assignment
 * criterion; a context's tags link to extras' own tags) and config
 * templates. Never edit it; add a migration.
 */
export function configContextStatements(schema: string): string[] {
  const s = `"${schema}"`;
  const links: [string, string | null][] = [
    ['config_context_regions', null],
    ['config_context_site_groups', null],
    ['config_context_sites', null],
    ['config_context_locations', null],
    ['config_context_device_types', null],
    ['config_context_roles', null],
    ['config_context_platforms', null],
    ['config_context_cluster_types', null],
    ['config_context_cluster_groups', null],
    ['config_context_clusters', null],
    ['config_context_tenant_groups', null],
    ['config_context_tenants', null],
    ['config_context_tags', 'tag'],
  ];
  return [
    `CREATE TABLE ${s}."config_context" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "weight" INTEGER,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "is_active" BOOLEAN,
      "data" JSONB NOT NULL,
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE TABLE ${s}."config_template" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '',
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "environment_params" JSONB,
      "template_code" TEXT NOT NULL DEFAULT '',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    ...links.flatMap(([table, target]) => [
      `CREATE TABLE ${s}."${table}" (
        "id" BIGSERIAL,
        "owner_id" BIGINT NOT NULL REFERENCES ${s}."config_context" ("id") ON DELETE CASCADE,
        "target_id" BIGINT NOT NULL${target ? ` REFERENCES ${s}."${target}" ("id") ON DELETE CASCADE` : ''},
        PRIMARY KEY ("id")
      )`,
      `CREATE UNIQUE INDEX "${table}_owner_id_target_id_uniq" ON ${s}."${table}" ("owner_id", "target_id")`,
      `CREATE INDEX "${table}_target_id_idx" ON ${s}."${table}" ("target_id")`,
    ]),
  ];
}

export const configContexts: Migration = {
  name: '0008_config_contexts',
  up: ({ qi, schema }) => runStatements(qi, configContextStatements(schema)),
};
