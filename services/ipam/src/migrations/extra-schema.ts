/**
 * What the declarations cannot say: the ipam schema beyond the tables
 * `createModelTables` derives from the models. The schema test
 * (test/schema.test.ts) adds these statements to the declared side before it
 * compares it with what the migrations built, so a change here without a
 * migration (or a migration without a change here) fails that test.
 * Migrations never import this file: they are frozen SQL.
 */
export function extraSchema(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    // the host of an address, in the spec's own form: the free-address search and the block-usage upkeep read it (decision 019)
    `CREATE INDEX "ip_address_host_idx" ON ${s}."ip_address" ((CAST(HOST(address) AS inet)))`,
    // distinct hosts per block and scope (src/allocation/usage.ts), kept by the IP address hooks (decision 019, "Dense parents")
    `CREATE TABLE ${s}."ip_block_usage" ("scope" BIGINT NOT NULL, "len" SMALLINT NOT NULL, "block" CIDR NOT NULL, "used" INTEGER NOT NULL, PRIMARY KEY ("scope", "len", "block"))`,
  ];
}
