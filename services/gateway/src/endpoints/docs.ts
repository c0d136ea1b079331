import path from 'node:path';
import type { Express, NextFunction, Request, Response } from 'express';
import { NotFound } from '@inventory/core';
import { ownRoute } from './methods';
import type { SchemaBuilder } from './schema';

/** swagger-ui-dist's files, served by the gateway so the docs work without internet access. */
const ASSETS_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
/** Only what the page loads; not the package's own index.html (the petstore demo). */
const ASSET = /^\/api\/docs\/((?:swagger-ui(?:-bundle|-standalone-preset)?\.(?:css|js))(?:\.map)?|favicon-(?:16x16|32x32)\.png)$/;

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>NetBox REST API</title>
    <link rel="stylesheet" href="swagger-ui.css">
    <link rel="icon" type="image/png" href="favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <p style="margin: 0; padding: 8px 20px; font-family: sans-serif; font-size: 14px; background: #f7f7f7; border-bottom: 1px solid #ddd">
      Change events (RabbitMQ, exchange <code>inventory.events</code>): <a href="../schema/events/">AsyncAPI document</a>
    </p>
    <div id="swagger-ui"></div>
    <script src="swagger-ui-bundle.js"></script>
    <script src="swagger-ui-standalone-preset.js"></script>
    <script>
      // relative to /api/docs/, so the page also works behind a path prefix
      window.ui = SwaggerUIBundle({
        url: new URL('../schema/?format=json', window.location.href).href,
        dom_id: '#swagger-ui',
        deepLinking: true,
        persistAuthorization: true,
        presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
        plugins: [SwaggerUIBundle.plugins.DownloadUrl],
        layout: 'StandaloneLayout',
        // signed in with a session cookie (no token): writes need the session's CSRF token, as in DRF
        requestInterceptor: (request) => {
          const m = document.cookie.match(/(?:^|;\\s*)csrftoken=([^;]+)/);
          if (m) request.headers['X-CSRFToken'] = decodeURIComponent(m[1]);
          return request;
        },
      });
    </script>
  </body>
</html>
`;

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

/** GET /api/docs/: Swagger UI over /api/schema/ (linking the events' /api/schema/events/); `?format=openapi` returns the schema itself (older clients). */
export function mountDocs(app: Express, schema: SchemaBuilder): void {
  ownRoute(app, '/api/docs/', async (req, res) => {
    if (req.query.format === 'openapi') {
      res.json(await schema.document());
      return;
    }
    res.type('html').send(PAGE);
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
