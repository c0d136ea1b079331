import { allocationIndexDdl } from '../allocation';

/**
 * What the declarations cannot say: the ipam schema beyond what
 * `createModelTables` derives from the models. The schema test
 * (test/schema.test.ts) adds these statements to the declared side before it
 * compares it with what the migrations built, so a change here without a
 * migration (or a migration without a change here) fails that test.
 * Migrations never import this file: they are frozen SQL.
 */
export function extraSchema(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    // the btrees of the ordered searches and lists (docs/decisions/019-ip-index.md); 0005 creates them
    ...allocationIndexDdl({ ipAddress: `${schema}.ip_address`, prefix: `${schema}.prefix`, ipRange: `${schema}.ip_range` }),
    // distinct hosts per block and scope (src/allocation/usage.ts), kept by the IP address hooks (decision 019, "Dense parents"); 0007 creates it
    `CREATE TABLE ${s}."ip_block_usage" ("scope" BIGINT NOT NULL, "len" SMALLINT NOT NULL, "block" CIDR NOT NULL, "used" INTEGER NOT NULL, PRIMARY KEY ("scope", "len", "block"))`,
  ];
}
