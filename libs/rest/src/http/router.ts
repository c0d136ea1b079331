import type { Express } from 'express';
import { MethodNotAllowed } from '@inventory/core';
import { modelHandlers } from './handlers';
import { listDiffHandler, objectDiffHandler } from './diff';
import { type ModelDef, areaOf, type ServiceContext } from '../model';

/** The list and detail routes of one model, all from its declaration: a verb table over the handlers. */
export function mountModel(app: Express, ctx: ServiceContext, model: ModelDef): void {
  const listPath = `/api/${areaOf(model, ctx)}/${model.endpoint}/`;
  const h = modelHandlers(ctx, model);
  const writable = !model.readOnly;

  app.all(listPath, async (req, res) => {
    res.setHeader('Allow', writable ? 'GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS' : 'GET, HEAD, OPTIONS');
    if (req.method === 'GET' || req.method === 'HEAD') return h.list(req, res);
    if (req.method === 'OPTIONS') return h.options(req, res, false);
    if (writable && req.method === 'POST') return h.create(req, res);
    if (writable && req.method === 'PUT') return h.bulkUpdate(req, res, false);
    if (writable && req.method === 'PATCH') return h.bulkUpdate(req, res, true);
    if (writable && req.method === 'DELETE') return h.bulkDestroy(req, res);
    throw new MethodNotAllowed(req.method);
  });

  // what changed between two moments (diff.ts); before `:id/`, which would take `diff` for an id
  app.all(`${listPath}diff/`, async (req, res) => {
    res.setHeader('Allow', 'GET, HEAD, OPTIONS');
    if (req.method === 'GET' || req.method === 'HEAD') return listDiffHandler(ctx, model, req, res);
    throw new MethodNotAllowed(req.method);
  });
  app.all(`${listPath}:id/diff/`, async (req, res) => {
    res.setHeader('Allow', 'GET, HEAD, OPTIONS');
    if (req.method === 'GET' || req.method === 'HEAD') return objectDiffHandler(ctx, model, req, res);
    throw new MethodNotAllowed(req.method);
  });

  app.all(`${listPath}:id/`, async (req, res) => {
    res.setHeader('Allow', writable ? 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS' : 'GET, HEAD, OPTIONS');
    if (req.method === 'GET' || req.method === 'HEAD') return h.retrieve(req, res);
    if (req.method === 'OPTIONS') return h.options(req, res, true);
    if (writable && req.method === 'PUT') return h.update(req, res, false);
    if (writable && req.method === 'PATCH') return h.update(req, res, true);
    if (writable && req.method === 'DELETE') return h.destroy(req, res);
    throw new MethodNotAllowed(req.method);
  });
}
