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
