import { historyOpenVersions, historyTables, sharedTables, type Migration } from '@inventory/rest';
import { initial } from './0001_initial';
import { addressing } from './0002_addressing';
import { vlansAsnsServices } from './0003_vlans_asns_services';
import { prefixVlan } from './0004_prefix_vlan';
import { ipIndexes } from './0005_ip_indexes';
import { serviceIpaddresses } from './0006_service_ipaddresses';
import { ipBlockUsage } from './0007_ip_block_usage';
import { vpn } from './0008_vpn';

/** In order; each entry is frozen once released (docs/decisions/005-frozen-migrations.md). */
// the last: the library's migration of the tables every service has (its history made them already; it finds them)
export const migrations: Migration[] = [initial, addressing, vlansAsnsServices, prefixVlan, ipIndexes, serviceIpaddresses, ipBlockUsage, vpn, sharedTables, historyTables, historyOpenVersions];
