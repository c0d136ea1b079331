import type { Logger, Metrics } from '@inventory/core';
import type { PermissionSettings } from '@inventory/auth';
import type { ServiceClient } from '@inventory/refs';
import type { Db } from './db';
import type { ConsistencyGate } from './consistency';
import type { ExtrasApi } from './features';
import type { ModelDef } from './model';

export interface RestSettings extends PermissionSettings {
  paginateCount: number;
  maxPageSize: number;
  strictFiltering: boolean;
  publicUrl?: string;
  /** Signs list cursors (`?cursor=`), so every replica accepts another's and none accepts a forged one. */
  cursorSecret?: string;
}

/** Everything the generic engine needs to serve one service's models. */
export interface ServiceContext {
  name: string;
  /** API area (`tenancy`, `users`...), the segment after /api/. */
  area: string;
  db: Db;
  models: Map<string, ModelDef>;
  refs: ServiceClient;
  extras: ExtrasApi;
  settings: RestSettings;
  log: Logger;
  /** The instance's metrics (served at /metrics): background work registers its figures here. */
  metrics: Metrics;
  /** Read-your-writes across services: writes wait for the services that read their events (absent: they do not). */
  consistency?: ConsistencyGate;
  /**
   * What is this instance's own and its models' hooks read (ipam's settings,
   * extras' media store): declarations are shared by every instance in a
   * process, so nothing per instance is ever set on them.
   */
  own?: unknown;
}

/** The area a model's URLs live under (auth.user is served at /api/users/users/). */
export function areaOf(model: ModelDef, ctx: ServiceContext): string {
  return model.app === ctx.area ? model.app : ctx.area;
}
