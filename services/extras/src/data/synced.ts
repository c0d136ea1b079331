import type { Express, Request, Response } from 'express';
import { NotFound, ValidationError } from '@inventory/core';
import { ident, or, raw, sql, type FilterDef } from '@inventory/filtering';
import {
  areaOf,
  awaitReaders,
  baseUrl,
  capture,
  f,
  identityOf,
  mountRoute,
  parseId,
  prepare,
  represent,
  requirePermission,
  runChange,
  schemaName,
  update,
  type FieldDef,
  type ModelDef,
  type Row,
  type ServiceContext,
  type WriteContext,
} from '@inventory/rest';
import { serviceIdentity, type Identity } from '@inventory/auth';
import { fileText } from './files';

/**
 * NetBox's SyncedDataMixin on export templates, config contexts and config
 * templates: an object may name a data file (`data_file`, writable here on
 * all three; decision 029), whose source and path it keeps (`data_source`,
 * `data_path`), and whose content it copies (`data_synced`) when the file is
 * named and on `POST .../{id}/sync/`.
 */
export const syncedData = (): Record<string, FieldDef> => ({
  data_source: f.fk('core.datasource', 'PROTECT', { nullable: true, filterKey: null, help: 'Remote data source' }),
  data_path: f.string(1000, { readOnly: true, help: 'Path to remote file (relative to data source root)' }),
  data_file: f.fk('core.datafile', 'SET_NULL', { filterKey: null }),
  data_synced: f.datetime({ readOnly: true, nullable: true, label: 'date synced' }),
  // NetBox's model field (its 3.7 serializers leave it out): synced again after each sync of the file's source
  auto_sync_enabled: f.boolean(false, { help: 'Enable automatic synchronization of data when the data file is updated' }),
});

/**
 * NetBox's `data_source_id` / `data_file_id` (ModelMultipleChoiceFilters,
 * `__n` an exclude that keeps objects naming none): a value that is not an
 * id is `“x” is not a valid value.`, an id that names nothing an invalid
 * choice (Django's messages), `null` the objects naming none.
 */
function syncedRelationFilter(ctx: ServiceContext, name: string, column: string, table: string): FilterDef {
  return {
    kind: 'method',
    name,
    lookups: ['n'],
    apply: async (values, lookup) => {
      const given = values.filter((v) => v !== '');
      if (!given.length) return undefined;
      const key = lookup ? `${name}__${lookup}` : name;
      const bad = given.find((v) => v !== 'null' && !(/^\d{1,18}$/.test(v) && Number.isSafeInteger(Number(v))));
      if (bad !== undefined) throw new ValidationError({ [key]: [`\u201c${bad}\u201d is not a valid value.`] });
      const ids = [...new Set(given.filter((v) => v !== 'null').map(Number))];
      if (ids.length) {
        const found = new Set((await ctx.db.query(sql`SELECT id FROM ${raw(ctx.db.table(table))} WHERE id = ANY(${ids}::bigint[])`)).map((r) => Number(r.id)));
        const missing = ids.find((id) => !found.has(id));
        if (missing !== undefined) throw new ValidationError({ [key]: [`Select a valid choice. ${missing} is not one of the available choices.`] });
      }
      const col = sql`t.${ident(column)}`;
      const hasNull = given.includes('null');
      const match = or([...(ids.length ? [sql`${col} = ANY(${ids}::bigint[])`] : []), ...(hasNull ? [sql`${col} IS NULL`] : [])]);
      return lookup === 'n' ? sql`NOT COALESCE(${match}, FALSE)` : match;
    },
  };
}

/** The filters of NetBox's SyncedDataMixin beside the generated `data_synced`: `data_source_id` and `data_file_id`. */
export const syncedDataFilters = (ctx: ServiceContext): FilterDef[] => [
  syncedRelationFilter(ctx, 'data_source_id', 'data_source_id', 'data_source'),
  syncedRelationFilter(ctx, 'data_file_id', 'data_file_id', 'data_file'),
];

/** How a model takes a file's content (NetBox's `sync_data`): the columns it sets from the text. */
export type SyncData = (text: string) => Row;

/** Template code: the text as it is (export and config templates). */
export const templateCode: SyncData = (text) => ({ template_code: text });

/** The YAML parser, loaded on first use (about 70 modules that most services never need). */
let yaml: typeof import('yaml') | undefined;
const parseYaml = (text: string): unknown => (yaml ??= require('yaml') as typeof import('yaml')).parse(text);

/** Context data: the file read as YAML (or JSON), which must be an object (config contexts). */
export const contextData: SyncData = (text) => {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw new ValidationError({ data_file: [`The file is not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`] });
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new ValidationError({ data_file: ['JSON data must be in object form. Example: {"foo": 123}'] });
  return { data };
};

/** The columns syncing `fileId` sets: the file's source and path, its content, the time. */
async function synced(ctx: ServiceContext, wctx: WriteContext, fileId: number, sync: SyncData): Promise<Row> {
  const file = await fileText(ctx, wctx.tx, fileId);
  if (!file) throw new ValidationError({ data_file: [`Invalid pk "${fileId}" - object does not exist.`] });
  if (file.text === null) throw new ValidationError({ data_file: ['The file is not UTF-8 text.'] });
  return { data_source_id: file.sourceId, data_path: file.path, ...sync(file.text), data_synced: new Date() };
}

/**
 * The `beforeSave` of a synced model (NetBox's SyncedDataMixin.clean): a
 * data file named copies its content in now; none clears the path and the
 * sync time (the data source stays as given, as NetBox's API keeps it).
 */
export function syncedBeforeSave(sync: SyncData) {
  return async (columns: Row, existing: Row | null, wctx: WriteContext): Promise<void> => {
    const named = 'data_file_id' in columns;
    const fileId = named ? columns.data_file_id : (existing?.data_file_id ?? null);
    if (fileId === null || fileId === undefined) {
      // no file: nothing to keep in step with (an auto sync asked for alone is dropped, as NetBox's clean does)
      if (named || columns.auto_sync_enabled) Object.assign(columns, { data_path: '', data_synced: null, auto_sync_enabled: false });
      return;
    }
    if (!named) return;
    // naming the same file again does not sync it (the sync action does)
    if (existing && Number(existing.data_file_id) === Number(fileId) && existing.data_synced) return;
    Object.assign(columns, await synced(wctx.service, wctx, Number(fileId), sync));
  };
}

/**
 * `POST /api/extras/<endpoint>/{id}/sync/` (NetBox's SyncedDataMixin
 * action): the object's data file copied in again (a change of the object,
 * with its change record and event); the object as it is then. An object
 * without a data file is answered as it is. Needs the change permission
 * (NetBox's `sync_<model>`, which object permissions here cannot name).
 */
export function mountSyncAction(app: Express, ctx: ServiceContext, model: ModelDef, sync: SyncData): void {
  mountRoute(app, {
    path: `/api/${areaOf(model, ctx)}/${model.endpoint}/:id/sync/`,
    idOf: model.verboseName,
    name: 'Sync',
    operations: {
      post: {
        summary: `Provide a /sync API endpoint to synchronize an object's data from its associated DataFile (if any).`,
        response: { $ref: `#/components/schemas/${schemaName(model)}` },
        handler: (req, res) => syncObject(ctx, model, sync, req, res),
      },
    },
  });
}

async function syncObject(ctx: ServiceContext, model: ModelDef, sync: SyncData, req: Request, res: Response): Promise<void> {
  const id = parseId(req.params.id);
  const identity = identityOf(res);
  const scope = requirePermission(ctx, model, identity, 'change');
  const table = raw(ctx.db.table(model.table));
  const base = baseUrl(req, ctx.settings.publicUrl);
  const [row] = await ctx.db.query(sql`SELECT t.* FROM ${table} t WHERE t.id = ${id} AND ${scope}`);
  if (!row) throw new NotFound();
  if (row.data_file_id !== null && row.data_file_id !== undefined) {
    const { recorded } = await syncObjects(ctx, model, sync, [id], identity, base);
    await awaitReaders(ctx, res, recorded.events);
  }
  const [fresh] = await ctx.db.query(sql`SELECT t.* FROM ${table} t WHERE t.id = ${id}`);
  const [rep] = await represent(ctx, model, [fresh], { mode: 'full', base });
  res.json(rep);
}

/**
 * NetBox's `SyncedDataMixin.sync(save=True)` on objects of one model, in one
 * write: each object's data file copied in (an object whose file is gone is
 * left as it is), a change of each, with its change record and event.
 */
async function syncObjects(ctx: ServiceContext, model: ModelDef, sync: SyncData, ids: number[], identity: Identity, base = '') {
  const table = raw(ctx.db.table(model.table));
  return runChange(
    ctx,
    model,
    identity,
    async (wctx) => {
      const rows = await wctx.tx.query(sql`SELECT t.* FROM ${table} t WHERE t.id = ANY(${ids}::bigint[]) AND t.data_file_id IS NOT NULL ORDER BY t.id FOR UPDATE`);
      if (ids.length === 1 && !rows.length) throw new NotFound();
      await capture(ctx, model, wctx, rows);
      for (const existing of rows) {
        const p = await prepare(ctx, model, {}, 'patch', existing, wctx);
        Object.assign(p.columns, await synced(ctx, wctx, Number(existing.data_file_id), sync));
        await update(ctx, model, Number(existing.id), p, existing, wctx);
      }
      return { touched: { updated: rows } };
    },
    base,
  );
}

/** A model that copies data files, and how. */
export interface SyncedModel {
  model: ModelDef;
  sync: SyncData;
}

/**
 * After a source's sync (NetBox's `auto_sync` on `post_sync`): the objects
 * with `auto_sync_enabled` whose data file of that source changed since
 * they copied it are synced again, each model in one write by the service
 * (their change records name no user, as the sync job has no request). An
 * object whose file no longer parses is left as it is and counted apart.
 */
export async function autoSync(ctx: ServiceContext, sourceId: number, models: SyncedModel[]): Promise<{ synced: number; failed: number }> {
  const out = { synced: 0, failed: 0 };
  const identity = serviceIdentity(ctx.name);
  const files = raw(ctx.db.table('data_file'));
  for (const { model, sync } of models) {
    const table = raw(ctx.db.table(model.table));
    const due = await ctx.db.query(sql`
      SELECT t.id FROM ${table} t JOIN ${files} f ON f.id = t.data_file_id
       WHERE t.auto_sync_enabled AND f.source_id = ${sourceId} AND (t.data_synced IS NULL OR t.data_synced < f.last_updated)
       ORDER BY t.id`);
    for (const { id } of due) {
      try {
        await syncObjects(ctx, model, sync, [Number(id)], identity);
        out.synced++;
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        ctx.log.warn({ model: model.label, id, errors: err.errors }, 'auto sync: the data file cannot be copied');
        out.failed++;
      }
    }
  }
  return out;
}
