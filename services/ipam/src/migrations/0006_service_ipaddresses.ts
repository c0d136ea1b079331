import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): a service's IP
 * addresses (NetBox's `Service.ipaddresses`, many-to-many), the link table
 * as the engine makes one (an IP address's delete takes its links).
 */
export function serviceIpaddressesStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE TABLE IF NOT EXISTS ${s}."service_ipaddresses" ("id"  BIGSERIAL , "owner_id" BIGINT NOT NULL REFERENCES ${s}."service" ("id") ON DELETE CASCADE, "target_id" BIGINT NOT NULL REFERENCES ${s}."ip_address" ("id") ON DELETE CASCADE, PRIMARY KEY ("id"))`,
    `CREATE UNIQUE INDEX "service_ipaddresses_owner_id_target_id_uniq" ON ${s}."service_ipaddresses" ("owner_id", "target_id")`,
    `CREATE INDEX "service_ipaddresses_target_id_idx" ON ${s}."service_ipaddresses" ("target_id")`,
  ];
}

export const serviceIpaddresses: Migration = {
  name: '0006_service_ipaddresses',
  up: ({ qi, schema }) => runStatements(qi, serviceIpaddressesStatements(schema)),
};
