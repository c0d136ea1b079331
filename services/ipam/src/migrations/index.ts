import type { Migration } from '@inventory/rest';
import { initial } from './0001_initial';
import { vlansAsnsServices } from './0003_vlans_asns_services';

/** In order; each entry is frozen once released (docs/decisions/005-frozen-migrations.md). */
export const migrations: Migration[] = [initial, vlansAsnsServices];
