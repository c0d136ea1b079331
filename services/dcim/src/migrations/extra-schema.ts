/**
 * What the declarations cannot say: the dcim schema beyond the tables
 * `createModelTables` derives from the models. The schema test
 * (test/schema.test.ts) adds these statements to the declared side before it
 * compares it with what the migrations built, so a change here without a
 * migration (or a migration without a change here) fails that test.
 * Migrations never import this file: they are frozen SQL.
 */
export function extraSchema(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    // NetBox's CablePath: the traced hops of each path (src/cabling/paths.ts), found by any node through _nodes
    `CREATE TABLE ${s}."cable_path" (
      "id" BIGSERIAL,
      "origin_type" VARCHAR(100) NOT NULL,
      "origin_ids" BIGINT[] NOT NULL,
      "path" JSONB NOT NULL,
      "_nodes" TEXT[] NOT NULL,
      "is_active" BOOLEAN NOT NULL DEFAULT false,
      "is_complete" BOOLEAN NOT NULL DEFAULT false,
      "is_split" BOOLEAN NOT NULL DEFAULT false,
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "cable_path__nodes_idx" ON ${s}."cable_path" USING GIN ("_nodes")`,
    `CREATE INDEX "cable_path_origin_ids_idx" ON ${s}."cable_path" USING GIN ("origin_ids")`,
    // each path endpoint's own path (NetBox's PathEndpoint._path)
    ...['console_port', 'console_server_port', 'power_port', 'power_outlet', 'interface', 'power_feed'].flatMap((t) => [
      `ALTER TABLE ${s}."${t}" ADD COLUMN "_path_id" BIGINT REFERENCES ${s}."cable_path" ("id") ON DELETE SET NULL`,
      `CREATE INDEX "${t}__path_id_idx" ON ${s}."${t}" ("_path_id")`,
    ]),
    // a cable's ends, read by cable (the cable column is not a declared relation: the cable's delete hook removes its ends)
    `CREATE INDEX "cable_termination_cable_idx" ON ${s}."cable_termination" ("cable")`,
  ];
}
