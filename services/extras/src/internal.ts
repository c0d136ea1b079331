import type { Express } from 'express';
import type { ServiceContext } from '@inventory/rest';
import type { LocalExtras } from './extras-local';

/** What the other services ask extras for (see RemoteExtras in libs/rest). */
export function mountExtrasInternal(app: Express, ctx: ServiceContext): void {
  const extras = ctx.extras as LocalExtras;
  app.get('/internal/custom-fields', async (req, res) => {
    res.json({ fields: await extras.customFields(String(req.query.content_type ?? '')) });
  });
  app.post('/internal/tags/resolve', async (req, res) => {
    res.json({ results: await extras.resolveTags(req.body?.refs ?? [], String(req.body?.content_type ?? '')) });
  });
  app.post('/internal/tags/by-id', async (req, res) => {
    const rows = await extras.tagRows((req.body?.ids ?? []).map(Number));
    res.json({ tags: rows.map((r) => ({ ...r, display: r.name })) });
  });
  app.post('/internal/tags/by-slug', async (req, res) => {
    res.json({ ids: Object.fromEntries(await extras.tagIdsBySlug((req.body?.slugs ?? []).map(String))) });
  });
}

/**
 * Drop this process's cached tags and custom field definitions. With a broker
 * (AMQP_URL), every other service and replica drops its own on the change
 * events; without one, events wait in the outbox, so the other services are
 * told over HTTP instead (the fallback).
 */
export async function broadcastInvalidation(ctx: ServiceContext, o: { overHttp: boolean }): Promise<void> {
  ctx.extras.invalidate();
  if (!o.overHttp) return;
  await Promise.all(
    ctx.refs
      .services()
      .filter((s) => s !== ctx.name)
      .map((s) => ctx.refs.call(s, 'POST', '/internal/cache/invalidate', {}).catch((err: Error) => ctx.log.warn({ service: s, err: err.message }, 'cache invalidation failed'))),
  );
}
