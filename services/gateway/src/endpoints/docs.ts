import path from 'node:path';
import type { Express, NextFunction, Request, Response } from 'express';
import { NotFound } from '@inventory/core';
import { ownRoute } from './methods';
import type { SchemaBuilder } from './schema';
import { renderPage } from '../pages/templates';

/** swagger-ui-dist's files, served by the gateway so the docs work without internet access. */
const ASSETS_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
/** Only what the page loads; not the package's own index.html (the petstore demo). */
const ASSET = /^\/api\/docs\/((?:swagger-ui(?:-bundle|-standalone-preset)?\.(?:css|js))(?:\.map)?|favicon-(?:16x16|32x32)\.png)$/;

/** Static files of Swagger UI, mounted before the trailing-slash redirect and authentication (browsers send no token). */
export function docsAssets() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const m = ASSET.exec(req.path);
    if (!m || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    res.sendFile(m[1], { root: ASSETS_DIR, maxAge: '1d' }, (err) => {
      if (err) next(new NotFound());
    });
  };
}

/** templates/docs.liquid, which has no data: rendered once. */
let page: string | undefined;

/** GET /api/docs/: Swagger UI over /api/schema/ (linking the events' /api/schema/events/); `?format=openapi` returns the schema itself (older clients). */
export function mountDocs(app: Express, schema: SchemaBuilder): void {
  ownRoute(app, '/api/docs/', async (req, res) => {
    if (req.query.format === 'openapi') {
      res.json(await schema.document());
      return;
    }
    page ??= renderPage('docs', {});
    res.type('html').send(page);
  });
  ownRoute(app, '/api/schema/', async (req, res) => {
    const doc = await schema.document();
    const accept = String(req.headers.accept ?? '');
    if (req.query.format === 'json' || /application\/(vnd\.oai\.openapi\+)?json/.test(accept)) {
      res.json(doc);
      return;
    }
    // NetBox's default is YAML (application/vnd.oai.openapi); JSON text is valid YAML 1.2, so the same bytes serve both
    res.type('application/vnd.oai.openapi; charset=utf-8').send(JSON.stringify(doc, null, 2));
  });
  // the change events on the broker: AsyncAPI, JSON (valid YAML too)
  ownRoute(app, '/api/schema/events/', async (_req, res) => {
    res.json(await schema.events());
  });
}
