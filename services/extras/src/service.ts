import { CHANGELOG_QUEUE } from '@inventory/events';
import type { BaseConfig } from '@inventory/core';
import { createRestService, type RestService } from '@inventory/rest';
import { mountChoices } from './choices';
import { mountContentTypes } from './contenttypes';
import { LocalExtras } from './extras-local';
import { mountExtrasInternal } from './internal';
import { models, imageAttachment } from './models';
import { migrations } from './migrations';
import { changelog } from './changelog';
import { bookmarkFollower } from './bookmark-follower';
import { mountConfigTemplateRender } from './config-templates';
import { dataSourceSettings, mediaSettings, type DataSourceEnv, type MediaSettings } from './config';
import { mountDataRoutes } from './data/routes';
import type { DataOwn } from './data/settings';
import { syncWorker } from './data/sync';
import { autoSync } from './data/synced';
import { SYNCED_MODELS } from './data/routes';
import type { ExtrasOwn } from './images/hooks';
import { mountImageRoutes, readsImageForm } from './images/routes';
import { MediaStore } from './images/store';
import { imageSweeper } from './images/sweep';
import { extrasAfterCommit } from './committed';

export interface ExtrasOptions {
  /** The change log's queue (default `extras.changelog`; replicas of one deployment share it). */
  changelogQueue?: string;
}

export function createService(config: BaseConfig & Partial<MediaSettings> & Partial<DataSourceEnv>, opts: ExtrasOptions = {}): RestService {
  const media = mediaSettings(config);
  const store = new MediaStore(media.MEDIA_ROOT);
  const dataSources = dataSourceSettings(config);
  const own: ExtrasOwn & DataOwn = { store, dataSources };
  const service = createRestService({
    name: 'extras',
    area: 'extras',
    // NetBox 3.7's core app (data sources, data files, jobs: decision 028)
    areas: ['core'],
    config,
    models,
    migrations,
    extras: (ctx) => new LocalExtras(ctx),
    // the media store is this instance's (image attachments' hooks read it from ctx.own)
    own,
    // its caches and files, after each commit
    afterCommit: extrasAfterCommit,
    extraEndpoints: ['content-types'],
    streamedBody: readsImageForm,
    routes: (app, ctx) => {
      mountExtrasInternal(app, ctx);
      mountContentTypes(app, ctx);
      mountChoices(app, ctx);
      mountConfigTemplateRender(app, ctx);
      mountDataRoutes(app, ctx);
      mountImageRoutes(app, ctx, { model: imageAttachment, store, maxImageSize: media.MAX_IMAGE_SIZE });
    },
    // the change log reads every service's events: their writes wait until it shows them
    reads: config.AMQP_URL ? { [opts.changelogQueue ?? CHANGELOG_QUEUE.name]: CHANGELOG_QUEUE.bindings } : {},
    // the change log (bookmarks follow their objects in it), the sweep of image files no row names and the syncs of data sources
    workers: (ctx) => [
      changelog(ctx, config, config.CHANGELOG_RETENTION, opts.changelogQueue, [bookmarkFollower(ctx)]),
      imageSweeper(ctx, imageAttachment, store),
      syncWorker(ctx, dataSources, async (sourceId) => {
        const { synced, failed } = await autoSync(ctx, sourceId, SYNCED_MODELS);
        return { auto_synced: synced, auto_sync_failed: failed };
      }),
    ],
  });
  return service;
}
