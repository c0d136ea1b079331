import type { Reference } from '@inventory/events';
import { type ChangeEvent, type ConsumerTx } from '@inventory/events';
import { type Sql, sql, raw, quoteIdent } from '@inventory/filtering';
import { CONTENT_TYPES, contentType } from '@inventory/refs';
import type { Queryable, NestedTag, ModelDef, ServiceContext, Row } from '../model';
import type { TagProjection } from './extras-client';
import { absoluteUrls } from './reference';

/**
 * Local, read-only copies of other services' objects (ARCHITECTURE.md,
 * 'Cross-service references'): for every model of another service that this
 * one references or counts, a table in its own schema with the object's id,
 * version, nested representation, stored values (the owner's snapshot) and
 * ordering and tree keys. The owner's change events keep it current
 * (version-checked upserts, tombstones for deletes); the owner's snapshot
 * endpoint fills an empty one. Reads then never leave the service.
 *
 * The tables derive from the declarations and can always be rebuilt from the
 * owner, so they are created at start rather than by frozen migrations
 * (docs/decisions/008-projections.md).
 */

/** One object as a projection keeps it. */
export interface ProjectionRecord {
  id: number;
  version: number;
  deleted: boolean;
  nested: Row | null;
  /** The owner's snapshot: stored values by field name, relations as ids. */
  data: Row;
  sort: string[];
  path: number[] | null;
}

export interface Projected {
  label: string;
  /** Fields of the projected model whose ids this service counts or filters by (indexed). */
  keys: Set<string>;
}

export function projectionTable(label: string): string {
  return `_proj_${label.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}`;
}

const derived = new WeakMap<Map<string, ModelDef>, Map<string, Projected>>();

/**
 * The projections a service keeps, derived from its declarations: referenced
 * models, hop targets, counted models, of other services (a model of its own
 * that it does not serve yet, dcim's devices before they exist, counts 0).
 */
export function projectedModels(ctx: Pick<ServiceContext, 'models' | 'name'>): Map<string, Projected> {
  let known = derived.get(ctx.models);
  if (!known) derived.set(ctx.models, (known = deriveProjected(ctx.name, ctx.models)));
  return known;
}

function deriveProjected(service: string, models: Map<string, ModelDef>): Map<string, Projected> {
  const ctx = { models };
  const out = new Map<string, Projected>();
  const want = (label: string, key?: string) => {
    // an own model not served yet counts 0; so does a model the catalogue does not list yet (no owner to copy it from)
    const ct = contentType(label);
    if (ctx.models.has(label) || !ct || ct.service === service) return;
    const p = out.get(label) ?? { label, keys: new Set<string>() };
    if (key) p.keys.add(key);
    out.set(label, p);
  };
  for (const m of ctx.models.values()) {
    for (const field of Object.values(m.fields)) {
      if (field.type === 'fk' || field.type === 'm2m') want(field.to);
      if (field.type !== 'fk') continue;
      for (const hop of field.hops ?? []) {
        want(field.to, hop.via);
        want(hop.to);
      }
    }
    for (const count of Object.values(m.counts)) {
      // a many-to-many list is no single id to index by
      want(count.model, count.many ? undefined : count.field);
      if (count.via) want(count.via.model, count.via.field);
    }
    for (const r of m.reads ?? []) {
      want(r.label);
      for (const key of r.keys ?? []) want(r.label, key);
    }
    // tags are another service's objects too (extras'): rendered and filtered by from a projection
    if (m.tags) want('extras.tag');
    // custom field definitions are cached from extras: their events (applied here, confirmed to extras) drop the cache
    if (m.customFields) {
      want('extras.customfield');
      want('extras.customfieldchoiceset');
    }
    // config contexts render from extras' contexts, matched through what the criteria read
    if (m.configContext) {
      want('extras.configcontext');
      for (const label of m.configContext.reads ?? []) want(label);
    }
    // contact filters go through tenancy's assignments, contacts and groups
    if (m.contacts) {
      want('tenancy.contactassignment', 'object_id');
      want('tenancy.contact', 'group');
      want('tenancy.contactrole');
      want('tenancy.contactgroup');
    }
    // a generic relation may point at any model its content type allows (contact assignments: every model with contacts)
    for (const field of Object.values(m.fields)) {
      if (field.type !== 'generic') continue;
      const typeField = m.fields[field.typeField];
      const allowed = field.allowed ?? (typeField?.type === 'contenttype' ? typeField.allowed : undefined);
      if (allowed) for (const ct of CONTENT_TYPES) if (allowed(ct.label)) want(ct.label);
    }
  }
  // every list applies saved filters and export templates (extras'), read locally
  if (models.size) {
    want('extras.savedfilter');
    want('extras.exporttemplate');
  }
  return out;
}

/** DDL of one projection (idempotent: run at every start). */
export function projectionStatements(schema: string, p: Projected): string[] {
  const name = projectionTable(p.label);
  const t = `${quoteIdent(schema)}.${quoteIdent(name)}`;
  return [
    `CREATE TABLE IF NOT EXISTS ${t} (
      "id" BIGINT PRIMARY KEY,
      "version" BIGINT NOT NULL,
      "deleted" BOOLEAN NOT NULL DEFAULT FALSE,
      "nested" JSONB,
      "data" JSONB NOT NULL,
      "sort" TEXT[] NOT NULL DEFAULT '{}',
      "path" BIGINT[]
    )`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdent(`${name}_slug_idx`)} ON ${t} ((data->>'slug'))`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdent(`${name}_path_idx`)} ON ${t} USING GIN ("path")`,
    ...[...p.keys].map((k) => `CREATE INDEX IF NOT EXISTS ${quoteIdent(`${name}_${k}_idx`)} ON ${t} (((data->>${pgText(k)})::bigint)) WHERE NOT "deleted"`),
  ];
}

const pgText = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * A projected row's id under `key`, as the key's index names it
 * (`(<alias>.data->>'tenant')::bigint`): the key is written into the text,
 * never a parameter. A named statement keeps a generic plan, and with
 * `data->>$1` that plan cannot use the index: every count over a page then
 * scanned the whole projection once per row (decision 033, "Profile").
 */
export function projectedId(alias: string, key: string): Sql {
  return raw(`(${alias ? `${alias}.` : ''}data->>${pgText(key)})::bigint`);
}

/** Other services' objects reserved by their owner's delete being decided (reservations.ts). */
export const RESERVATION_TABLE = '_reservation';

/** DDL of the reservations (transient: created at start with the projections, never migrated). */
export function reservationStatements(schema: string): string[] {
  const t = `${quoteIdent(schema)}.${quoteIdent(RESERVATION_TABLE)}`;
  return [
    `CREATE TABLE IF NOT EXISTS ${t} (
      "label" VARCHAR(100) NOT NULL,
      "object_id" BIGINT NOT NULL,
      "token" UUID NOT NULL,
      "until" TIMESTAMP WITH TIME ZONE NOT NULL,
      PRIMARY KEY ("label", "object_id")
    )`,
  ];
}

/** Creates the projections a service lacks: one round trip (extras projects every journaled model, some sixty tables). */
export async function ensureProjections(ctx: ServiceContext): Promise<void> {
  const projected = [...projectedModels(ctx).values()];
  // reservations of other services' objects being deleted (reservations.ts): transient, like the projections
  const statements = [...projected.flatMap((p) => projectionStatements(ctx.name, p)), ...(projected.length ? reservationStatements(ctx.name) : [])];
  // no parameters: sent as one simple query, its statements run in order as one transaction
  if (statements.length) await ctx.db.query(sql`${raw(statements.join(';\n'))}`);
}

/** The projection table of `label` in this service's schema, as SQL. */
export function projection(ctx: ServiceContext, label: string): Sql {
  return raw(ctx.db.table(projectionTable(label)));
}

/** What a change event says about the object, as a projection record. */
export function recordOf(event: ChangeEvent): ProjectionRecord {
  const ref: Partial<Reference> = event.reference ?? {};
  const snapshot = (event.snapshots?.postchange ?? event.snapshots?.prechange ?? {}) as Row;
  return {
    id: Number(event.object_id),
    version: Number(event.version),
    deleted: event.event === 'deleted',
    nested: (ref.nested as Row | undefined) ?? null,
    data: snapshot,
    sort: ref.sort ?? [],
    path: ref.path ?? null,
  };
}

/** Whether `a` wins over `b` (the same object): a newer version, or a delete of the same version. */
const wins = (a: ProjectionRecord, b: ProjectionRecord): boolean => a.version > b.version || (a.version === b.version && a.deleted && !b.deleted);

/**
 * Applies records, newest version wins; a delete (tombstone) wins over a
 * live record of the same version (a delete does not bump the version). In
 * any order, the same records leave the same state, several of one object
 * included (its winner is upserted: one statement cannot touch a row twice).
 */
export async function applyRecords(ctx: ServiceContext, q: Queryable | ConsumerTx, label: string, all: ProjectionRecord[]): Promise<void> {
  if (!all.length) return;
  const byId = new Map<number, ProjectionRecord>();
  for (const r of all) {
    const held = byId.get(r.id);
    if (!held || wins(r, held)) byId.set(r.id, r);
  }
  const records = [...byId.values()];
  const t = projection(ctx, label);
  await q.query(sql`
    INSERT INTO ${t} AS p (id, version, deleted, nested, data, sort, path)
    SELECT r.id, r.version, r.deleted, r.nested, r.data, ARRAY(SELECT jsonb_array_elements_text(r.sort)),
           CASE WHEN r.path IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(r.path)::bigint) END
      FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb)
        AS r(id bigint, version bigint, deleted boolean, nested jsonb, data jsonb, sort jsonb, path jsonb)
    ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, deleted = EXCLUDED.deleted, nested = EXCLUDED.nested,
                                   data = EXCLUDED.data, sort = EXCLUDED.sort, path = EXCLUDED.path
     WHERE p.version < EXCLUDED.version OR (p.version = EXCLUDED.version AND EXCLUDED.deleted AND NOT p.deleted)`);
}

/** A projected object's list of strings as `text[]` (`content_types` of a saved filter, an export template): `{}` when not a list. */
export function projectedTextList(key: string): Sql {
  return sql`ARRAY(SELECT jsonb_array_elements_text(CASE WHEN jsonb_typeof(data->${key}::text) = 'array' THEN data->${key}::text ELSE '[]' END))`;
}

/** Nested representations of projected objects by id (tombstones are gone: null). */
export async function projectedNested(ctx: ServiceContext, label: string, ids: number[], base: string, q: Queryable = ctx.db): Promise<Map<number, Row>> {
  const rows = await q.query(sql`SELECT id, nested FROM ${projection(ctx, label)} WHERE id = ANY(${ids}::bigint[]) AND NOT deleted`);
  return new Map(rows.filter((r) => r.nested).map((r) => [Number(r.id), absoluteUrls(r.nested as Row, base)]));
}

/** The owner's answer for one page of its objects, as projection records (`/internal/snapshot`). */
export interface SnapshotPage {
  records: ProjectionRecord[];
  /** The `after` of the next page; null at the end. */
  next: number | null;
}

/** A model's objects after `after` (by id), as the owner's snapshot endpoint answers them. */
export type SnapshotReader = (model: ModelDef, after: number, limit: number) => Promise<SnapshotPage>;

/** Tags read from this service's projection of them (see RemoteExtras). */
export function tagProjection(ctx: ServiceContext): TagProjection {
  return {
    nested: async (ids, base) => {
      const found = await projectedNested(ctx, 'extras.tag', [...new Set(ids)], base);
      return found as unknown as Map<number, NestedTag>;
    },
    idsBySlug: async (slugs) => {
      const rows = await ctx.db.query(sql`SELECT id, data->>'slug' AS slug FROM ${projection(ctx, 'extras.tag')} WHERE NOT deleted AND data->>'slug' = ANY(${slugs}::text[])`);
      return new Map(rows.map((r) => [String(r.slug), Number(r.id)]));
    },
  };
}
