import type { ServiceContext } from '@inventory/rest';
import { dataSourceSettings, type DataSourceSettings } from '../config';

/** What the extras instance keeps for its data sources (in `ctx.own`, beside the media store). */
export interface DataOwn {
  dataSources: DataSourceSettings;
  /** Wakes this instance's sync worker (set once it runs). */
  wake?: () => void;
}

const DEFAULTS = dataSourceSettings({} as never);

/** The data-source settings of the instance serving `ctx` (defaults when it has none, as a bare test service). */
export function dataSettingsOf(ctx: ServiceContext): DataSourceSettings {
  return (ctx.own as Partial<DataOwn> | undefined)?.dataSources ?? DEFAULTS;
}

/** Tells the instance's sync worker that a job is waiting (other replicas find it at their next poll). */
export function wakeSyncWorker(ctx: ServiceContext): void {
  (ctx.own as Partial<DataOwn> | undefined)?.wake?.();
}
