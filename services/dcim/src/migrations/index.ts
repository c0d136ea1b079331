import { historyOpenVersions, historyTables, sharedTables, type Migration } from '@inventory/rest';
import { initial } from './0001_initial';
import { racksAndTypes } from './0002_racks_and_types';
import { deviceTypes } from './0003_device_types';
import { devices } from './0004_devices';
import { componentsAndCables } from './0005_components_and_cables';
import { inventory } from './0006_inventory_and_contexts';
import { interfaceVdcs } from './0007_interface_vdcs';
import { outboxJson } from './0008_outbox_json';
import { wireless } from './0009_wireless';

/** In order; each entry is frozen once released (docs/decisions/005-frozen-migrations.md). */
// the last: the library's migration of the tables every service has (its history made them already; it finds them)
export const migrations: Migration[] = [initial, racksAndTypes, deviceTypes, devices, componentsAndCables, inventory, interfaceVdcs, outboxJson, wireless, sharedTables, historyTables, historyOpenVersions];
