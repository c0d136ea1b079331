import type { Express, Request, Response } from 'express';
import { NotFound, ValidationError } from '@inventory/core';
import { raw, sql } from '@inventory/filtering';
import { areaOf, baseUrl, fetchByIds, identityOf, mountRoute, parseId, represent, requirePermission, schemaName, type ServiceContext } from '@inventory/rest';
import { configContext, configTemplate, dataSource, exportTemplate } from '../models';
import { checkSourceUrl } from './policy';
import { dataSettingsOf, wakeSyncWorker } from './settings';
import { enqueueSync } from './sync';
import { contextData, mountSyncAction, templateCode, type SyncedModel } from './synced';

/** The data-source routes beyond the model's: its sync, and the sync of each model that copies a data file. */
export function mountDataRoutes(app: Express, ctx: ServiceContext): void {
  mountRoute(app, {
    path: `/api/${areaOf(dataSource, ctx)}/${dataSource.endpoint}/:id/sync/`,
    idOf: dataSource.verboseName,
    name: 'Sync',
    operations: {
      post: {
        summary: 'Enqueue a job to synchronize the DataSource.',
        response: { $ref: `#/components/schemas/${schemaName(dataSource)}` },
        handler: (req, res) => syncSource(ctx, req, res),
      },
    },
  });
  for (const { model, sync } of SYNCED_MODELS) mountSyncAction(app, ctx, model, sync);
}

/** The models that copy data files (NetBox's SyncedDataMixin), and how each takes a file's content. */
export const SYNCED_MODELS: SyncedModel[] = [
  { model: exportTemplate, sync: templateCode },
  { model: configContext, sync: contextData },
  { model: configTemplate, sync: templateCode },
];

/**
 * `POST /api/core/data-sources/{id}/sync/` (NetBox's DataSourceViewSet.sync):
 * a sync job queued (data/sync.ts), the source answered as it then is
 * (`status` queued). Needs the change permission (NetBox's `sync_datasource`,
 * which object permissions here cannot name). A disabled source, one
 * already queued or syncing, or one the settings no longer allow is a 400.
 */
async function syncSource(ctx: ServiceContext, req: Request, res: Response): Promise<void> {
  const id = parseId(req.params.id);
  const identity = identityOf(res);
  const scope = requirePermission(ctx, dataSource, identity, 'change');
  const table = raw(ctx.db.table(dataSource.table));
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx.query(sql`SELECT t.* FROM ${table} t WHERE t.id = ${id} AND ${scope} FOR UPDATE`);
    if (!row) throw new NotFound();
    if (!row.enabled) throw new ValidationError({ non_field_errors: ['This data source is disabled: enable it to sync it.'] });
    if (row.status === 'queued' || row.status === 'syncing') throw new ValidationError({ non_field_errors: [`This data source is already ${String(row.status)}.`] });
    const refused = checkSourceUrl(String(row.type), String(row.source_url), dataSettingsOf(ctx));
    if (refused) throw new ValidationError({ source_url: [refused] });
    await enqueueSync(ctx, tx, id, identity);
  });
  wakeSyncWorker(ctx);
  // with its file count, as the list shows it
  const fresh = await fetchByIds(ctx, dataSource, [id]);
  const [rep] = await represent(ctx, dataSource, fresh, { mode: 'full', base: baseUrl(req, ctx.settings.publicUrl) });
  res.json(rep);
}
