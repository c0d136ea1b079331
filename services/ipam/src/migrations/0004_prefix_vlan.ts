import { runStatements, type Migration } from '@inventory/rest';

/** Frozen history (docs/decisions/005-frozen-migrations.md): a prefix's VLAN references ipam's VLANs (0002 came before the VLAN table). */
export function prefixVlanStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [`ALTER TABLE ${s}."prefix" ADD CONSTRAINT "prefix_vlan_id_fkey" FOREIGN KEY ("vlan_id") REFERENCES ${s}."vlan" ("id") ON DELETE RESTRICT`];
}

export const prefixVlan: Migration = {
  name: '0004_prefix_vlan',
  up: ({ qi, schema }) => runStatements(qi, prefixVlanStatements(schema)),
};
