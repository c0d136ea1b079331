import type { Express, Request, Response, NextFunction } from 'express';
import { createApp, createLogger, listen, type BaseConfig, type Logger, type RunningServer, NotFound, ValidationError } from '@inventory/core';
import { IDENTITY_HEADER, verifyIdentity, parseExemptList } from '@inventory/auth';
import { ServiceClient } from '@inventory/refs';
import { Db } from './db';
import { RemoteExtras } from './extras-client';
import type { ExtrasApi } from './features';
import { filtersFor } from './filters';
import type { ModelDef } from './model';
import { COMMON_SCHEMAS, modelOpenApi } from './openapi';
import { resolveLocal } from './relations';
import { areaOf, type ServiceContext } from './registry';
import { mountModel } from './router';
import { migrate, TAGGED_ITEM_TABLE, type Migration } from './schema';
import { nestedFor } from './serialize';
import { keyResolver } from './filters';
import { baseUrl } from './urls';
import { sql, raw, ident } from '@inventory/filtering';

export interface RestServiceOptions {
  /** Service name; also its database schema. */
  name: string;
  /** API area served (the segment after /api/). */
  area: string;
  config: BaseConfig;
  models: ModelDef[];
  migrations: Migration[];
  /** The extras service passes its local implementation. */
  extras?: (ctx: Omit<ServiceContext, 'extras'>) => ExtrasApi;
  /** Routes that are really the service's own (mounted before the model routes). */
  routes?: (app: Express, ctx: ServiceContext) => void;
  /** Endpoints under /api/<area>/ that are not models but belong in the area listing. */
  extraEndpoints?: string[];
  log?: Logger;
}

export interface RestService {
  ctx: ServiceContext;
  app: Express;
  /** Runs migrations and listens. */
  start(port?: number): Promise<RunningServer>;
  stop(): Promise<void>;
}

/** Paths that answer without an identity token. */
const OPEN_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export function createRestService(opts: RestServiceOptions): RestService {
  const { config } = opts;
  const log = opts.log ?? createLogger(opts.name, config.LOG_LEVEL);
  const db = new Db(config.DATABASE_URL, opts.name, config.DATABASE_POOL_MAX);
  const refs = new ServiceClient(opts.name, config.SERVICE_URLS, config.INTERNAL_TOKEN_SECRET);
  const base: Omit<ServiceContext, 'extras'> = {
    name: opts.name,
    area: opts.area,
    db,
    models: new Map(opts.models.map((m) => [m.label, m])),
    refs,
    settings: {
      paginateCount: config.PAGINATE_COUNT,
      maxPageSize: config.MAX_PAGE_SIZE,
      strictFiltering: config.STRICT_FILTERING,
      publicUrl: config.PUBLIC_URL,
      loginRequired: config.LOGIN_REQUIRED,
      exemptViewPermissions: parseExemptList(config.EXEMPT_VIEW_PERMISSIONS),
    },
    log,
  };
  const ctx: ServiceContext = { ...base, extras: opts.extras ? opts.extras(base) : new RemoteExtras(refs) };

  const app = createApp({
    name: opts.name,
    log,
    queryCountHeader: config.QUERY_COUNT_HEADER,
    readiness: [() => db.ping()],
    routes: (app) => {
      app.use((req: Request, res: Response, next: NextFunction) => {
        if (OPEN_PATHS.has(req.path)) return next();
        res.locals.identity = verifyIdentity(config.INTERNAL_TOKEN_SECRET, req.headers[IDENTITY_HEADER] as string | undefined);
        next();
      });
      mountInternal(app, ctx);
      app.get(`/api/${opts.area}/`, (req, res) => {
        const b = baseUrl(req, config.PUBLIC_URL);
        const endpoints = [...opts.models.filter((m) => areaOf(m, ctx) === opts.area).map((m) => m.endpoint), ...(opts.extraEndpoints ?? [])].sort();
        res.json(Object.fromEntries(endpoints.map((e) => [e, `${b}/api/${opts.area}/${e}/`])));
      });
      opts.routes?.(app, ctx);
      for (const model of opts.models) mountModel(app, ctx, model);
      app.use((_req, _res, next) => next(new NotFound()));
    },
  });

  let server: RunningServer | null = null;
  return {
    ctx,
    app,
    async start(port = config.PORT) {
      const applied = await migrate(config.DATABASE_URL, opts.name, opts.models, opts.migrations);
      if (applied.length) log.info({ applied }, 'migrations applied');
      server = await listen(app, port, config.HOST);
      log.info({ port: server.port }, `${opts.name} listening`);
      return server;
    },
    async stop() {
      if (server) await server.close();
      await db.close();
    },
  };
}

/** Endpoints other services call: resolve references, nested representations, keys, counts, schema. */
function mountInternal(app: Express, ctx: ServiceContext): void {
  const model = (label: unknown): ModelDef => {
    const m = ctx.models.get(String(label));
    if (!m) throw new ValidationError({ model: [`Unknown model ${String(label)}`] });
    return m;
  };
  app.post('/internal/resolve', async (req, res) => {
    res.json({ results: await resolveLocal(ctx, model(req.body?.model), req.body?.refs ?? []) });
  });
  app.post('/internal/nested', async (req, res) => {
    // the same answer a local relation gets (nestedFor): plain rows, no count annotations
    const objects = await nestedFor(ctx, model(req.body?.model).label, (req.body?.ids ?? []).map(Number), String(req.body?.base ?? ''));
    res.json({ objects: [...objects.values()] });
  });
  app.post('/internal/keys', async (req, res) => {
    const found = await keyResolver(ctx, model(req.body?.model).label, String(req.body?.key), !!req.body?.tree)((req.body?.values ?? []).map(String));
    res.json({ ids: Object.fromEntries(found) });
  });
  app.post('/internal/counts', async (req, res) => {
    const m = model(req.body?.model);
    const field = String(req.body?.field);
    if (m.fields[field]?.type !== 'fk') throw new ValidationError({ field: ['Not a relation.'] });
    const rows = await ctx.db.query(
      sql`SELECT ${ident(`${field}_id`)} AS k, count(*) AS n FROM ${raw(ctx.db.table(m.table))} WHERE ${ident(`${field}_id`)} = ANY(${(req.body?.ids ?? []).map(Number)}::bigint[]) GROUP BY 1`,
    );
    res.json({ counts: Object.fromEntries(rows.map((r) => [String(r.k), Number(r.n)])) });
  });
  app.post('/internal/tags/counts', async (req, res) => {
    const rows = await ctx.db.query(
      sql`SELECT tag_id, count(*) AS n FROM ${raw(ctx.db.table(TAGGED_ITEM_TABLE))} WHERE tag_id = ANY(${(req.body?.ids ?? []).map(Number)}::bigint[]) GROUP BY 1`,
    );
    res.json({ counts: Object.fromEntries(rows.map((r) => [String(r.tag_id), Number(r.n)])) });
  });
  app.post('/internal/custom-fields/data', async (req, res) => {
    const b = req.body ?? {};
    let updated = 0;
    for (const m of ctx.models.values()) {
      if (!m.customFields || !(b.content_types ?? []).includes(m.label)) continue;
      updated += await rewriteCustomFieldData(ctx, m, b.op, String(b.name), b);
    }
    res.json({ updated });
  });
  app.post('/internal/tags/used', async (req, res) => {
    const rows = await ctx.db.query(
      sql`SELECT DISTINCT tag_id FROM ${raw(ctx.db.table(TAGGED_ITEM_TABLE))} WHERE content_type = ANY(${(req.body?.content_types ?? []).map(String)}::text[])`,
    );
    res.json({ ids: rows.map((r) => Number(r.tag_id)) });
  });
  app.post('/internal/cache/invalidate', (_req, res) => {
    ctx.extras.invalidate();
    res.json({ ok: true });
  });
  app.get('/internal/openapi', async (_req, res) => {
    const paths: Record<string, unknown> = {};
    const schemas: Record<string, unknown> = { ...COMMON_SCHEMAS };
    for (const m of ctx.models.values()) {
      const defs = filtersFor(ctx, m, m.customFields ? await ctx.extras.customFields(m.label) : []);
      const doc = modelOpenApi(m, areaOf(m, ctx), ctx.models, defs);
      Object.assign(paths, doc.paths);
      Object.assign(schemas, doc.schemas);
    }
    res.json({ paths, components: { schemas } });
  });
}

/**
 * NetBox's side effects of editing a custom field, applied to stored values:
 * `populate` writes the default into objects that lack the key (a content type
 * was added), `remove` drops the key, `rename` moves it.
 */
export async function rewriteCustomFieldData(ctx: ServiceContext, m: ModelDef, op: string, name: string, b: { default?: unknown; new_name?: string }): Promise<number> {
  const table = raw(ctx.db.table(m.table));
  let rows: Record<string, unknown>[] = [];
  if (op === 'populate') {
    rows = await ctx.db.query(
      sql`UPDATE ${table} SET custom_field_data = custom_field_data || jsonb_build_object(${name}::text, ${JSON.stringify(b.default ?? null)}::jsonb) WHERE NOT custom_field_data ? ${name} RETURNING id`,
    );
  } else if (op === 'remove') {
    rows = await ctx.db.query(sql`UPDATE ${table} SET custom_field_data = custom_field_data - ${name}::text WHERE custom_field_data ? ${name} RETURNING id`);
  } else if (op === 'rename' && b.new_name) {
    rows = await ctx.db.query(
      sql`UPDATE ${table} SET custom_field_data = (custom_field_data - ${name}::text) || jsonb_build_object(${b.new_name}::text, custom_field_data -> ${name}::text) WHERE custom_field_data ? ${name} RETURNING id`,
    );
  } else throw new ValidationError({ op: [`Unknown operation ${op}.`] });
  return rows.length;
}
