import { ValidationError } from '@inventory/core';
import { raw, sql, type FilterDef } from '@inventory/filtering';
import { defineModel, f, parseUuid, type ModelDef, type Row, type WriteContext } from '@inventory/rest';
import { CENSORED, checkSourceUrl, checkParameters } from '../data/policy';
import { dataSettingsOf } from '../data/settings';

/** NetBox 3.7's data backends served here: `amazon-s3` is not (decision 029). */
export const DATA_SOURCE_TYPES = [
  ['local', 'Local'],
  ['git', 'Git'],
] as const;

/** NetBox's DataSourceStatusChoices. */
export const DATA_SOURCE_STATUSES = [
  ['new', 'New'],
  ['queued', 'Queued'],
  ['syncing', 'Syncing'],
  ['completed', 'Completed'],
  ['failed', 'Failed'],
] as const;

const asObject = (v: unknown): Row | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : null);

/**
 * Data sources (NetBox 3.7's core.DataSource, `/api/core/data-sources/`,
 * served by extras: decision 028): a local folder or a git repository whose
 * files a sync (`POST .../{id}/sync/`, data/sync.ts) reads into data files.
 * What a source may name is bounded by the service's settings (decision
 * 029): a local folder below `DATA_SOURCE_LOCAL_ROOTS`, a git URL of a
 * scheme in `DATA_SOURCE_GIT_SCHEMES`. `status` and `last_synced` are the
 * sync's; the git `password` parameter is never shown (`********`), and a
 * write giving `********` back keeps the stored one.
 */
export const dataSource: ModelDef = defineModel({
  label: 'core.datasource',
  endpoint: 'data-sources',
  table: 'data_source',
  verboseName: 'data source',
  fields: {
    name: f.name(100, { unique: true }),
    type: f.choice(DATA_SOURCE_TYPES, { required: true }),
    source_url: f.string(200, { required: true, label: 'URL' }),
    enabled: f.boolean(true),
    status: f.choice(DATA_SOURCE_STATUSES, { readOnly: true, default: 'new' }),
    description: f.description(),
    comments: f.comments(),
    parameters: f.json({ nullable: true, shape: 'object', filter: false }),
    ignore_rules: f.text({ help: 'Patterns (one per line) matching files to ignore when syncing', filter: false }),
    last_synced: f.datetime({ readOnly: true, nullable: true, filter: false }),
  },
  brief: ['name'],
  display: (r) => String(r.name),
  ordering: ['name'],
  search: ['name', 'description', 'comments'],
  counts: { file_count: { model: 'core.datafile', field: 'source' } },
  hooks: {
    validate(data: Row, _existing: Row | null, wctx: WriteContext) {
      const settings = dataSettingsOf(wctx.service);
      const errors: Record<string, string[]> = {};
      const urlError = checkSourceUrl(String(data.type), String(data.source_url ?? ''), settings);
      if (urlError) errors.source_url = [urlError];
      const paramError = checkParameters(String(data.type), data.parameters);
      if (paramError) errors.parameters = [paramError];
      if (Object.keys(errors).length) throw new ValidationError(errors);
    },
    beforeSave(columns: Row, existing: Row | null) {
      // read-only: a new source has not been synced
      if (!existing) columns.status = 'new';
      // the censored password given back (a GET then a PUT) keeps the stored one
      const given = asObject(columns.parameters);
      if (given?.password === CENSORED) {
        const stored = asObject(existing?.parameters)?.password;
        columns.parameters = { ...given, password: stored ?? '' };
      }
    },
    // NetBox's JobsMixin: an object's jobs go with it
    async beforeDelete(ids: number[], wctx: WriteContext) {
      await wctx.tx.query(sql`DELETE FROM ${raw(wctx.service.db.table('job'))} WHERE object_type = 'core.datasource' AND object_id = ANY(${ids}::bigint[])`);
    },
    snapshot(snap: Row) {
      const params = asObject(snap.parameters);
      if (params && typeof params.password === 'string' && params.password !== '') snap.parameters = { ...params, password: CENSORED };
    },
    decorate(_rows, out) {
      for (const o of out) {
        const params = asObject(o.parameters);
        if (params && typeof params.password === 'string' && params.password !== '') o.parameters = { ...params, password: CENSORED };
      }
    },
  },
});

/** ChangeLoggedModelFilterSet's request filters: a data file has no change records, so a valid request id matches none. */
function requestFilter(name: string): FilterDef {
  return {
    kind: 'method',
    name,
    valueType: 'string',
    apply: (values) => {
      const given = values[values.length - 1] ?? '';
      if (given.trim() === '') return undefined;
      parseUuid(given);
      return raw('FALSE');
    },
  };
}

/**
 * Data files (core.DataFile, read-only): what the last sync of a source
 * read, one per file (`path` relative to the source's root, `size`, the
 * SHA-256 `hash`, `last_updated` when its content last changed); the
 * content is kept beside them (`data_file_data`) and, as in NetBox, not
 * serialized; nor is `created` (a filter only). Written by the sync alone:
 * no change records.
 */
export const dataFile: ModelDef = defineModel({
  label: 'core.datafile',
  endpoint: 'data-files',
  table: 'data_file',
  verboseName: 'data file',
  fields: {
    source: f.fk('core.datasource', 'CASCADE', { readOnly: true, required: true, filterKey: 'name' }),
    path: f.string(1000, { readOnly: true, help: "File path relative to the data source's root" }),
    last_updated: f.datetime({ readOnly: true }),
    size: f.integer({ readOnly: true, min: 0 }),
    hash: f.string(64, { readOnly: true, help: 'SHA256 hash of the file data' }),
    // stored and filtered, not serialized (NetBox's DataFileSerializer leaves it out)
    created: f.datetime({ readOnly: true, writeOnly: true }),
  },
  tags: false,
  customFields: false,
  timestamps: false,
  readOnly: true,
  unique: [{ fields: ['source', 'path'], message: 'Data file with this Source and Path already exists.' }],
  brief: ['path'],
  display: (r) => String(r.path),
  ordering: ['source', 'path'],
  search: ['path'],
  filters: (): FilterDef[] => [
    { kind: 'datetime', name: 'created', expr: sql`t.created` },
    requestFilter('created_by_request'),
    requestFilter('updated_by_request'),
    requestFilter('modified_by_request'),
  ],
});
