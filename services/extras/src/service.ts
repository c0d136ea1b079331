import { CHANGELOG_QUEUE } from '@inventory/events';
import { sql, raw } from '@inventory/filtering';
import type { BaseConfig } from '@inventory/core';
import { createRestService, TAGGED_ITEM_TABLE, type Queryable, type RestService, type ServiceContext } from '@inventory/rest';
import { mountChoices } from './choices';
import { applyCustomFieldChanges } from './customfield-effects';
import { mountContentTypes } from './contenttypes';
import { LocalExtras } from './extras-local';
import { mountExtrasInternal } from './internal';
import { models, tag, customField, choiceSet, imageAttachment } from './models';
import { migrations } from './migrations';
import { changelog } from './changelog';
import { bookmarkFollower } from './bookmark-follower';
import { mountConfigTemplateRender } from './config-templates';
import { mediaSettings, type MediaSettings } from './config';
import { attachImageHooks } from './images/hooks';
import { mountImageRoutes, readsImageForm } from './images/routes';
import { MediaStore } from './images/store';
import { imageSweeper } from './images/sweep';

/** Tags are counted where they are used: here and in every other service, one call each per page. */
async function taggedItems(ctx: ServiceContext, q: Queryable, ids: number[]): Promise<Map<number, number>> {
  const totals = new Map<number, number>(ids.map((id) => [id, 0]));
  const local = await q.query(
    sql`SELECT tag_id, count(*) AS n FROM ${raw(ctx.db.table(TAGGED_ITEM_TABLE))} WHERE tag_id = ANY(${ids}::bigint[]) GROUP BY 1`,
  );
  for (const r of local) totals.set(Number(r.tag_id), Number(r.n));
  const remote = ctx.refs.services().filter((s) => s !== ctx.name && s !== 'users' && s !== 'gateway');
  const answers = await Promise.all(
    remote.map((s) => ctx.refs.call<{ counts: Record<string, number> }>(s, 'POST', '/internal/tags/counts', { ids }).catch(() => ({ counts: {} }))),
  );
  for (const a of answers) for (const [k, n] of Object.entries(a.counts)) totals.set(Number(k), (totals.get(Number(k)) ?? 0) + n);
  return totals;
}

export interface ExtrasOptions {
  /** The change log's queue (default `extras.changelog`; replicas of one deployment share it). */
  changelogQueue?: string;
}

export function createService(config: BaseConfig & Partial<MediaSettings>, opts: ExtrasOptions = {}): RestService {
  const media = mediaSettings(config);
  const store = new MediaStore(media.MEDIA_ROOT);
  attachImageHooks(imageAttachment, store);
  // this process drops its own definitions at once (read your writes); every other process does on the change events
  for (const m of [tag, choiceSet]) m.hooks.afterCommit = async (ctx) => ctx.extras.invalidate();
  customField.hooks.afterCommit = async (ctx, changes) => {
    ctx.extras.invalidate();
    await applyCustomFieldChanges(ctx, changes);
  };
  tag.hooks.decorate = async (rows, out, { brief, service, q, wants }) => {
    if (brief || !rows.length || wants?.('tagged_items') === false) return;
    const counts = await taggedItems(service, q, rows.map((r) => Number(r.id)));
    out.forEach((o) => (o.tagged_items = counts.get(Number(o.id)) ?? 0));
  };
  const service = createRestService({
    name: 'extras',
    area: 'extras',
    config,
    models,
    migrations,
    extras: (ctx) => new LocalExtras(ctx),
    extraEndpoints: ['content-types'],
    streamedBody: readsImageForm,
    routes: (app, ctx) => {
      mountExtrasInternal(app, ctx);
      mountContentTypes(app, ctx);
      mountChoices(app, ctx);
      mountConfigTemplateRender(app, ctx);
      mountImageRoutes(app, ctx, { model: imageAttachment, store, maxImageSize: media.MAX_IMAGE_SIZE });
    },
    // the change log reads every service's events: their writes wait until it shows them
    reads: config.AMQP_URL ? { [opts.changelogQueue ?? CHANGELOG_QUEUE.name]: CHANGELOG_QUEUE.bindings } : {},
    // the change log (bookmarks follow their objects in it) and the sweep of image files no row names
    workers: (ctx) => [changelog(ctx, config, config.CHANGELOG_RETENTION, opts.changelogQueue, [bookmarkFollower(ctx)]), imageSweeper(ctx, imageAttachment, store)],
  });
  return service;
}
