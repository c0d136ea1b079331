import path from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import { NotFound } from '@inventory/core';
import { renderPage } from '../pages/templates';

/** The files GraphiQL's page loads, by name under /graphql/static/, from the installed packages. */
const ASSETS: Record<string, string> = {
  'graphiql.min.js': path.join(path.dirname(require.resolve('graphiql/package.json')), 'graphiql.min.js'),
  'graphiql.min.css': path.join(path.dirname(require.resolve('graphiql/package.json')), 'graphiql.min.css'),
  'react.production.min.js': path.join(path.dirname(require.resolve('react/package.json')), 'umd', 'react.production.min.js'),
  'react-dom.production.min.js': path.join(path.dirname(require.resolve('react-dom/package.json')), 'umd', 'react-dom.production.min.js'),
};

/** Starts GraphiQL on the page's own URL (relative: works behind a path prefix); a file, so the page needs no inline script. */
const START = `'use strict';
var fetcher = GraphiQL.createFetcher({ url: window.location.pathname });
ReactDOM.createRoot(document.getElementById('graphiql')).render(
  React.createElement(GraphiQL, { fetcher: fetcher, defaultEditorToolsVisibility: true }),
);
`;

/** The page's scripts and styles are its own files; the API it calls is this origin. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; font-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

const ASSET_PATH = /^\/graphql\/static\/([a-z.-]+)$/;

/** GraphiQL's files, mounted before authentication (a browser sends no token for them), as Swagger UI's are. */
export function graphiqlAssets() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const m = ASSET_PATH.exec(req.path);
    if (!m || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    if (m[1] === 'graphiql-start.js') {
      res.type('application/javascript').setHeader('Cache-Control', 'max-age=86400');
      res.send(START);
      return;
    }
    const file = ASSETS[m[1]];
    if (!file) return next(new NotFound());
    res.sendFile(file, { maxAge: '1d' }, (err) => {
      if (err) next(new NotFound());
    });
  };
}

let page: string | undefined;

/** GraphiQL's page. */
export function sendGraphiql(res: Response): void {
  page ??= renderPage('graphiql', {});
  res.setHeader('Content-Security-Policy', CSP);
  res.type('html').send(page);
}
