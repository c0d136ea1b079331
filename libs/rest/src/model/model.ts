import type { Logger, Metrics } from '@inventory/core';
import type { Identity, PermissionSettings } from '@inventory/auth';
import type { FilterDef, Sql } from '@inventory/filtering';
import type { ServiceClient } from '@inventory/refs';
import type { FieldDef } from './fields';
import type { Db, Queryable, Tx } from './db';
import type { ConsistencyGate } from './consistency';
import type { ExtrasApi } from './features';
import type { ImportMark } from '@inventory/events';

/**
 * The declaration of a model and the types every part of the engine shares
 * (rows, the service's context, a write's context, what a write touched).
 * Types only, besides `defineModel`: it imports no runtime module of the
 * package, so that every room can depend on it.
 */

/** A plain database row or a representation being built. */
export type Row = Record<string, unknown>;

export interface WriteContext {
  tx: Tx;
  identity: Identity;
  requestId: string;
  service: ServiceContext;
  /** Lookups already done in this request (bulk writes name the same related objects again and again). */
  memo?: Map<string, Promise<unknown>>;
  /** Absolute base of the API for this request (the `url`s inside event data). */
  base?: string;
  /** Representations of objects as they were before this write changed them, by `<label>:<id>` (see `capture`). */
  prechange?: Map<string, Row>;
  /** Objects the write changed besides those its handler names: moved tree descendants, cascades. */
  also?: { model: ModelDef; touched: Touched }[];
  /** Set when a superuser's request says it is an import (X-Inventory-Import): ids kept, events marked, no components from templates. */
  importing?: ImportMark;
}

/** One object's rows before and after a committed write (null before a create, after a delete). */
export interface Change {
  before: Row | null;
  after: Row | null;
}

/** What a write touched, as its handler reports it to the pipeline. */
export interface Touched {
  created?: number[];
  /** Rows as they were before the update (locked by the handler). */
  updated?: Row[];
  /** Rows as they were before the delete. */
  deleted?: Row[];
}

export interface RestSettings extends PermissionSettings {
  paginateCount: number;
  maxPageSize: number;
  strictFiltering: boolean;
  publicUrl?: string;
  /** Signs list cursors (`?cursor=`), so every replica accepts another's and none accepts a forged one. */
  cursorSecret?: string;
  /**
   * The base of the URLs in change events (and so in webhook payloads): PUBLIC_URL, else the gateway's
   * own address from SERVICE_URLS; never a host a request named. Absent (a service run without a
   * gateway): the request's base, as its answer.
   */
  eventBase?: string;
  /** Time and output limits of users' templates (TEMPLATE_TIME_LIMIT_MS, TEMPLATE_OUTPUT_LIMIT; absent: the defaults). */
  templateLimits?: { timeMs: number; outputChars: number };
}

/** Everything the generic engine needs to serve one service's models. */
export interface ServiceContext {
  name: string;
  /** API area (`tenancy`, `users`...), the segment after /api/. */
  area: string;
  /** Other areas whose models this service serves under their own name (ipam serves NetBox 3.7's `vpn`). */
  areas?: string[];
  db: Db;
  models: Map<string, ModelDef>;
  refs: ServiceClient;
  extras: ExtrasApi;
  settings: RestSettings;
  log: Logger;
  /** The instance's metrics (served at /metrics): background work registers its figures here. */
  metrics: Metrics;
  /** Read-your-writes across services: writes wait for the services that read their events (absent: they do not). */
  consistency?: ConsistencyGate;
  /**
   * What is this instance's own and its models' hooks read (ipam's settings,
   * extras' media store): declarations are shared by every instance in a
   * process, so nothing per instance is ever set on them.
   */
  own?: unknown;
  /** The instance's own work once a write of `model` committed (drops its caches, removes files the write replaced). */
  afterCommit?: AfterCommit;
}

export type AfterCommit = (ctx: ServiceContext, model: ModelDef, changes: Change[]) => Promise<void> | void;

/** The area a model's URLs live under (auth.user is served at /api/users/users/, vpn.tunnel by ipam at /api/vpn/tunnels/). */
export function areaOf(model: ModelDef, ctx: ServiceContext): string {
  return model.app === ctx.area || ctx.areas?.includes(model.app) ? model.app : ctx.area;
}

/** NetBox's assignment criteria of a config context, each an m2m of the config context. */
export const CONFIG_CONTEXT_CRITERIA = [
  'regions',
  'site_groups',
  'sites',
  'locations',
  'device_types',
  'roles',
  'platforms',
  'cluster_types',
  'cluster_groups',
  'clusters',
  'tenant_groups',
  'tenants',
  'tags',
] as const;

export type ConfigContextCriterion = (typeof CONFIG_CONTEXT_CRITERIA)[number];

/**
 * A device, for example (dcim: sites, regions, site groups, locations, types,
 * roles and platforms are local; clusters, tenants and tenant groups are
 * projected), with `local_context_data: f.json({ nullable: true, shape: 'object' })`
 * among its fields:
 *
 *     configContext: {
 *       reads: ['virtualization.cluster', 'tenancy.tenantgroup'],
 *       criteria: (ctx) => ({
 *         regions: treeIds(ctx, 'dcim.region', relatedId(ctx, 'dcim.site', sql`t.site_id`, 'region')),
 *         site_groups: treeIds(ctx, 'dcim.sitegroup', relatedId(ctx, 'dcim.site', sql`t.site_id`, 'group')),
 *         sites: ids(sql`t.site_id`),
 *         locations: treeIds(ctx, 'dcim.location', sql`t.location_id`),
 *         device_types: ids(sql`t.device_type_id`),
 *         roles: ids(sql`t.role_id`),
 *         platforms: ids(sql`t.platform_id`),
 *         cluster_types: ids(relatedId(ctx, 'virtualization.cluster', sql`t.cluster_id`, 'type')),
 *         cluster_groups: ids(relatedId(ctx, 'virtualization.cluster', sql`t.cluster_id`, 'group')),
 *         clusters: ids(sql`t.cluster_id`),
 *         tenant_groups: treeIds(ctx, 'tenancy.tenantgroup', relatedId(ctx, 'tenancy.tenant', sql`t.tenant_id`, 'group')),
 *         tenants: ids(sql`t.tenant_id`),
 *         // tags: the device's own, by default
 *       }),
 *     },
 *
 * `config_context` then sits just before `local_context_data`, NetBox's
 * device order; a virtual machine says `after: 'custom_fields'`.
 */
export interface ConfigContextDef {
  /**
   * Per row (alias `t`), a `bigint[]` SQL expression of the ids the row
   * matches for each criterion (`sites: ids(sql\`t.site_id\`)`, `regions`:
   * the site's region and its ancestors, see `treeIds`). A context with no
   * object in a criterion matches every row; one with objects matches rows
   * whose ids share one with them. A criterion the model does not name is not
   * checked (NetBox checks device types and locations on devices only).
   * `tags`, when not named, is the object's own tags if the model has tags.
   */
  criteria: (ctx: ServiceContext) => Partial<Record<ConfigContextCriterion, Sql>>;
  /** Models of other services the criteria read (kept as projections): e.g. `dcim.region` for a VM's site's region. */
  reads?: string[];
  /** The JSON field merged on top of the contexts; default `local_context_data`. */
  local?: string;
  /** The key `config_context` follows in the full representation; default the key just before `local`. */
  after?: string;
}

/**
 * A count shown on each object (`tenant_count`): objects of `model` whose
 * `field` points here (with descendants for tree models), or whose
 * many-to-many `field` names it.
 */
export interface CountDef {
  model: string;
  field: string;
  /** Count objects attached to this node or any of its descendants. */
  tree?: boolean;
  /** Extra condition on the counted rows (SQL over alias `c`; a projection's row keeps the owner's stored values in `c.data`). */
  where?: string;
  /**
   * Count through the object `field` points at: objects of `model` whose
   * `field` names an object of `via.model` whose `via.field` is this one (a
   * site's `virtualmachine_count`: machines whose cluster is in the site).
   */
  via?: { model: string; field: string };
  /**
   * Another service's `field` is a many-to-many list (a site's `asns`): its
   * projected snapshot holds the ids, and the count is of the objects whose
   * list names this one.
   */
  many?: boolean;
}

export interface UniqueDef {
  fields: string[];
  /** Field the error is attached to; default `__all__`. */
  errorField?: string;
  message: string;
  /** Only enforced when these fields are null (e.g. name unique among tenants without a group). */
  whenNull?: string[];
  /**
   * Only enforced when these fields are not blank (Django's
   * `condition=~Q(name="")`: a provider account's name unique per provider
   * when it has one).
   */
  unlessBlank?: string[];
  /** Compare case-insensitively. */
  caseInsensitive?: boolean;
}

export interface ModelDef {
  /** `app_label.model`, the content type label. */
  label: string;
  app: string;
  model: string;
  /** Path segment below /api/<app>/. */
  endpoint: string;
  table: string;
  verboseName: string;
  verboseNamePlural?: string;
  fields: Record<string, FieldDef>;
  /** Fields of the brief/nested representation, besides id, url, display. */
  brief: string[];
  /** The object's string form, from its row and (for related names) its representation. */
  display: (row: Row, rep: Row) => string;
  /** Default ordering: field names with optional `-`; `_tree` for tree order. */
  ordering: string[];
  /** Columns searched by `q` (case-insensitive contains). */
  search: string[];
  tags: boolean;
  customFields: boolean;
  timestamps: boolean;
  /** `created` reads as a date (`YYYY-MM-DD`), not a datetime: the seed's prefixes and IP addresses. */
  createdAsDate?: boolean;
  /**
   * Ordering terms that are SQL over the row (alias `t`) rather than a
   * field: an address's host (`HOST(t.address)::inet`), a prefix's VRF id
   * with the global table first. Named in `ordering` like fields.
   */
  orderExpressions?: Record<string, string>;
  /** Self-referencing `parent` tree with _depth (NetBox's MPTT models). */
  tree: boolean;
  counts: Record<string, CountDef>;
  unique: UniqueDef[];
  /** Extra filters beyond the generated ones. */
  filters?: (ctx: ServiceContext, model: ModelDef) => FilterDef[];
  /** Filters to leave out of the generated ones. */
  skipFilters?: string[];
  /**
   * Filters whose meaning depends on who asks (a saved filter's `usable`):
   * added to the generated ones per request; documented as the anonymous
   * caller's.
   */
  callerFilters?: (identity: Identity) => FilterDef[];
  /**
   * The rows a caller may reach at all, beyond object permissions (SQL over
   * alias `t`): a private saved filter is its owner's. Applied to every
   * action, as part of the permitted scope.
   */
  visibleTo?: (identity: Identity) => Sql;
  /** NetBox's Contacts filters, for a model of another service than tenancy (whose assignments it projects). */
  contacts?: boolean;
  /**
   * Other services' models its hooks read that no field names, kept as
   * projections, with the keys looked up by (indexed): a circuit
   * termination's cable ends, which are dcim's.
   */
  reads?: { label: string; keys?: string[] }[];
  readOnly: boolean;
  /**
   * Fields written as a file part of a multipart/form-data body (an image
   * attachment's `image`), which the service's own route reads: declared
   * read-only (a JSON body cannot set them), shown writable in OPTIONS and
   * in the OpenAPI requests, which offer multipart/form-data.
   */
  uploads?: string[];
  /** Serialize/parse hooks for what is really the model's own. */
  hooks: ModelHooks;
  /** OPTIONS `description` / name overrides. */
  description?: string;
  /**
   * OpenAPI component name, when the verbose name would take another
   * model's (a VM interface is NetBox's `VMInterface`, not `Interface`,
   * which is dcim's: the gateway's merged document keeps the first of a name).
   */
  schemaName?: string;
  /**
   * The object shows `config_context` (devices, virtual machines): the
   * config contexts matching its criteria, merged, with its local context
   * data on top; computed in SQL, one statement per page (config-context.ts).
   */
  configContext?: ConfigContextDef;
}

/** One object a create or an update stored, as `afterSave` sees it. */
export interface Saved {
  id: number;
  /** The column values the write set (a create's defaults included). */
  columns: Row;
  /** The row before the update; null for a create. */
  existing: Row | null;
  /** The request's object as sent (what a declaration cannot store as a column, such as a cable's terminations). */
  body: Row;
}

/** The objects of `saved` that a create stored (an update's have `existing`). */
export const createdOf = (saved: Saved[]): Saved[] => saved.filter((s) => !s.existing);

/**
 * A model's own code, by where it runs. A write runs, in order:
 *   1. `validate`, then `beforeSave`: per object, before any row is stored;
 *   2. `afterSave` (the stored objects of a create or an update) or
 *      `beforeDelete` (the objects about to go);
 *   3. `afterWrite`: everything the write touched, before its change records.
 * After the commit the service instance's own `afterCommit` runs (its caches,
 * its files: state of the instance, never of the shared declaration).
 * Two more shape what is read: `decorate` (the full representation) and
 * `nested` (what other services keep).
 */
export interface ModelHooks {
  /**
   * Model-level validation after fields are resolved; throw ValidationError.
   * `data` is the stored row with the request's columns over it, and the
   * many-to-many lists the request writes (by field name, as ids); `body` is
   * the request's object as sent (what a declaration cannot store as a
   * column, such as a cable's terminations, is read from it).
   */
  validate?: (data: Row, existing: Row | null, ctx: WriteContext, body: Row) => Promise<void> | void;
  /** Adjust stored values before insert/update (e.g. hash a password, generate a key). */
  beforeSave?: (data: Row, existing: Row | null, ctx: WriteContext) => Promise<void> | void;
  /**
   * Extra keys for the full representation (computed per page, batched). Local
   * queries go through `q`: inside a write it is the write's transaction.
   * `wants(key)` says whether a key is shown (`fields=` / `omit=`): a hook may
   * skip the work for keys that are not (the rows then hold only the columns
   * of the shown fields; a virtual field shown reads the whole row). `base`
   * is the API's absolute base, for the urls of objects the hook nests.
   */
  decorate?: (
    rows: Row[],
    out: Record<string, unknown>[],
    ctx: { brief: boolean; service: ServiceContext; q: Queryable; base: string; wants?: (key: string) => boolean },
  ) => Promise<void> | void;
  /**
   * Runs inside a create's or an update's transaction once the objects'
   * rows, tree positions and links are stored: a bulk create's all at once
   * (in the rows' order), an update's one object. Writes what belongs to
   * the objects beyond their rows (a device's components from its type's
   * templates, a cable's terminations and paths) and carries a change down
   * to others (a location's new site to its descendants), set-based, each
   * object changed noted with `noteTouched` so it has its own change record
   * and event.
   */
  afterSave?: (saved: Saved[], ctx: WriteContext) => Promise<void>;
  /**
   * Runs inside a REST write's transaction once its handler applied it, with
   * what it created, updated and deleted (before the changes are recorded):
   * keeps derived values of other objects current (a virtual machine's disk
   * total from its virtual disks), each changed object noted with
   * `noteTouched`. Objects deleted by a cascade from another model do not
   * run it.
   */
  afterWrite?: (touched: Touched, ctx: WriteContext) => Promise<void>;
  /**
   * The nested representation taken from a full one (what other services
   * keep of the object), where a brief value differs from its full form: an
   * address's `family`, an integer when nested and `{value, label}` in full.
   */
  nested?: (nested: Row) => Row;
  /** Runs inside the delete transaction before rows go (e.g. remove dependants). */
  beforeDelete?: (ids: number[], ctx: WriteContext) => Promise<void>;
  /**
   * Censors a snapshot (NetBox's `to_objectchange`): what the change records
   * and the events keep of the object's stored values, a secret hidden (a
   * data source's git password). Changes the snapshot in place.
   */
  snapshot?: (snapshot: Row) => void;
}

export type ModelInput = Omit<
  ModelDef,
  'app' | 'model' | 'tags' | 'customFields' | 'timestamps' | 'tree' | 'counts' | 'unique' | 'readOnly' | 'hooks' | 'search' | 'table'
> &
  Partial<Pick<ModelDef, 'tags' | 'customFields' | 'timestamps' | 'tree' | 'counts' | 'unique' | 'readOnly' | 'hooks' | 'search' | 'table'>>;

export function defineModel(input: ModelInput): ModelDef {
  const [app, model] = input.label.split('.');
  return {
    tags: true,
    customFields: true,
    timestamps: true,
    tree: false,
    counts: {},
    unique: [],
    readOnly: false,
    hooks: {},
    search: [],
    table: model,
    ...input,
    app,
    model,
  };
}

/** Title-cased verbose name, as OPTIONS shows it (`Tenant Group`). */
export function titleName(model: ModelDef): string {
  return model.verboseName.replace(/\b\w/g, (c) => c.toUpperCase());
}
