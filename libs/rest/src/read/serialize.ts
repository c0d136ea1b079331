import { sql, raw } from '@inventory/filtering';
import {
  type Choice,
  type ChoiceField,
  type FieldDef,
  isoDateTime,
  networkText,
  renderCustomFields,
  type ModelDef,
  areaOf,
  type ServiceContext,
  type Row,
  type Queryable,
  TAGGED_ITEM_TABLE,
  type NestedTag,
} from '../model';
import { fieldsToCompute, project, wants, type FieldSelection } from './field-selection';
import { projectedModels, projectedNested } from '../projections';
import { TAG_IDS_COLUMN } from './query';
import { foldedRows, foldedTags } from './folded-relations';
import { dropUnset, fullShape } from './shapes';
import { CONFIG_CONTEXT_KEY, configContexts, placeConfigContext } from './config-context';

export type Mode = 'full' | 'brief' | 'nested';

export function objectUrl(ctx: ServiceContext, model: ModelDef, base: string, id: unknown): string {
  return `${listUrl(ctx, model, base)}${String(id)}/`;
}

/** The model's list URL (its objects' URLs add `<id>/`). */
function listUrl(ctx: ServiceContext, model: ModelDef, base: string): string {
  return `${base}/api/${areaOf(model, ctx)}/${model.endpoint}/`;
}

export function renderChoice(field: ChoiceField, value: unknown): unknown {
  if (value === null || value === undefined || value === '') return null;
  if (field.plain) return value;
  return { value, label: labelsOf(field).get(value) ?? '' };
}

/** Per choice field, its labels by value (an interface's type has some 200 choices: no scan per row). */
const labelIndex = new WeakMap<readonly Choice[], Map<unknown, string>>();
function labelsOf(field: ChoiceField): Map<unknown, string> {
  let labels = labelIndex.get(field.choices);
  if (!labels) {
    labels = new Map();
    for (const [v, label] of field.choices) if (!labels.has(v)) labels.set(v, label);
    labelIndex.set(field.choices, labels);
  }
  return labels;
}

function renderScalar(field: FieldDef, value: unknown): unknown {
  switch (field.type) {
    case 'choice':
      return renderChoice(field, value);
    case 'datetime':
      return isoDateTime(value);
    case 'decimal':
      return value === null || value === undefined ? null : Number(value);
    case 'cidr':
    case 'inet':
      return networkText(value);
    case 'array':
      // integer arrays are stored as bigint[], which the driver reads as text
      return Array.isArray(value) && field.of === 'integer' ? value.map(Number) : (value ?? null);
    default:
      return value === undefined ? null : value;
  }
}

/** Nested representations of objects of any model, keyed by id. */
export async function nestedFor(ctx: ServiceContext, label: string, ids: number[], base: string, q?: Queryable): Promise<Map<number, Row>> {
  const unique = [...new Set(ids.filter((id) => id !== null && id !== undefined).map(Number))];
  if (unique.length === 0) return new Map();
  const local = ctx.models.get(label);
  if (local) {
    const rows = await (q ?? ctx.db).query(sql`SELECT * FROM ${raw(ctx.db.table(local.table))} WHERE id = ANY(${unique}::bigint[])`);
    return nestedOf(ctx, local, rows, base, q);
  }
  // another service's objects: from this service's projection of them, never over HTTP
  if (projectedModels(ctx).has(label)) return projectedNested(ctx, label, unique, base, q);
  // what no declaration names (generic relations, object custom fields may point anywhere): asked of the owner
  const owner = ctx.refs.ownerOf(label);
  if (!ctx.refs.has(owner)) return new Map();
  const res = await ctx.refs.call<{ objects: Row[] }>(owner, 'POST', '/internal/nested', { model: label, ids: unique, base });
  return new Map(res.objects.map((o) => [Number(o.id), o]));
}

/** Nested representations of rows of this service's own model, keyed by id. */
async function nestedOf(ctx: ServiceContext, model: ModelDef, rows: Row[], base: string, q?: Queryable): Promise<Map<number, Row>> {
  const out = await represent(ctx, model, rows, { mode: 'nested', base, q });
  return new Map(out.map((o) => [Number(o.id), o]));
}

/**
 * The ids of each m2m field of a full representation, as the link table
 * holds them (a target the projection does not hold yet, or one shown as a
 * slug, is still there): the snapshot's relation ids (changes.ts), which
 * referring services project (a config context's criteria).
 */
const linked = new WeakMap<Row, Record<string, number[]>>();

/** The ids an m2m field of a representation built by `represent` links to; undefined for another object. */
export function linkedIds(rep: Row, name: string): number[] | undefined {
  return linked.get(rep)?.[name];
}

/** How a page is represented: the mode, the API base of its urls, and what the read asks beyond them. */
export interface Representation {
  mode: Mode;
  /** Absolute base of the API (`''`: urls relative to the API root). */
  base: string;
  /** Inside a write, its transaction (one connection: queries one after another); the pool otherwise. */
  q?: Queryable;
  /** `fields=` / `omit=`: what is not shown is not computed. */
  select?: FieldSelection | null;
  /** `exclude=config_context`. */
  excludeConfigContext?: boolean;
}

/** `created` / `last_updated` of a model that keeps them: a brief form may show them (a journal entry's `created`). */
export function isTimestamp(model: ModelDef, name: string): boolean {
  return model.timestamps && (name === 'created' || name === 'last_updated');
}

/** Field names shown in a mode, in order (read-only: computed once per model and mode). */
export function fieldsFor(model: ModelDef, mode: Mode): readonly string[] {
  let byMode = shownFields.get(model);
  if (!byMode) shownFields.set(model, (byMode = {}));
  return (byMode[mode] ??= mode === 'full' ? Object.keys(model.fields).filter((n) => !model.fields[n].writeOnly) : model.brief.filter((n) => n in model.fields || n in model.counts || n === '_depth' || isTimestamp(model, n)));
}

/** A declaration's fields do not change once it is declared: a request does not filter them again. */
const shownFields = new WeakMap<ModelDef, Partial<Record<Mode, readonly string[]>>>();

/** What `represent` loads for a page before rendering its rows, once per page. */
interface PageData {
  related: Map<string, Map<number, Row>>;
  m2m: Map<string, Map<number, number[]>>;
  generic: Map<string, Map<string, Map<number, Row>>>;
  contexts: Map<number, Row>;
  tags: Map<number, Row[]>;
  cfDefs: Awaited<ReturnType<ServiceContext['extras']['customFields']>>;
  cfObjects: Map<string, Map<number, Row>>;
}

/** The pool takes a page's queries in parallel; a transaction is one connection: one after another. */
async function eachOf<T>(how: Representation, items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  if (!how.q) {
    await Promise.all(items.map(fn));
    return;
  }
  for (const item of items) await fn(item);
}

/** The related objects of a page, one query per relation (fk and m2m nested, generic ones by type). */
async function loadRelations(ctx: ServiceContext, model: ModelDef, rows: Row[], names: readonly string[], how: Representation, page: PageData): Promise<void> {
  const { base, q } = how;
  await eachOf(how, names, async (name) => {
    const field = model.fields[name];
    if (!field) return;
    if (field.type === 'fk') {
      if (field.pk) return;
      // read by the page's statement (folded-relations.ts)
      const folded = foldedRows(rows, name);
      if (folded) return void page.related.set(name, await nestedOf(ctx, ctx.models.get(field.to)!, folded, base, q));
      const ids = rows.map((r) => r[`${name}_id`]).filter((v) => v !== null && v !== undefined) as number[];
      page.related.set(name, await nestedFor(ctx, field.to, ids, base, q));
    } else if (field.type === 'm2m') {
      const links = await (q ?? ctx.db).query(
        sql`SELECT owner_id, target_id FROM ${raw(ctx.db.table(field.through))} WHERE owner_id = ANY(${rows.map((r) => r.id)}::bigint[]) ORDER BY id`,
      );
      const byOwner = new Map<number, number[]>();
      for (const l of links) {
        const list = byOwner.get(Number(l.owner_id)) ?? [];
        list.push(Number(l.target_id));
        byOwner.set(Number(l.owner_id), list);
      }
      page.m2m.set(name, byOwner);
      page.related.set(name, await nestedFor(ctx, field.to, links.map((l) => Number(l.target_id)), base, q));
    } else if (field.type === 'generic') {
      const byType = new Map<string, number[]>();
      for (const r of rows) {
        const t = r[field.typeField] as string | null;
        if (!t || r[field.idField] === null) continue;
        byType.set(t, [...(byType.get(t) ?? []), Number(r[field.idField])]);
      }
      const maps = new Map<string, Map<number, Row>>();
      await eachOf(how, [...byType], async ([t, ids]) => void maps.set(t, await nestedFor(ctx, t, ids, base, q).catch(() => new Map())));
      page.generic.set(name, maps);
    }
  });
}

/** The page's tags (one query, then the projection of them), sorted by name per object; and its custom field definitions. */
async function loadTagsAndFields(ctx: ServiceContext, model: ModelDef, rows: Row[], how: Representation, page: PageData): Promise<void> {
  const db = how.q ?? ctx.db;
  // rows read by fetchByIds / fetchPage bring their tag ids (TAG_IDS_COLUMN): no statement for them
  const carried = rows.every((r) => Array.isArray(r[TAG_IDS_COLUMN]));
  const [tagRows, defs] = await Promise.all([
    model.tags && wants(how.select, 'tags') && carried
      ? Promise.resolve(rows.flatMap((r) => (r[TAG_IDS_COLUMN] as unknown[]).map((tag_id) => ({ object_id: r.id, tag_id }))))
      : model.tags && wants(how.select, 'tags')
      ? db.query(
          sql`SELECT object_id, tag_id FROM ${raw(ctx.db.table(TAGGED_ITEM_TABLE))} WHERE content_type = ${model.label} AND object_id = ANY(${rows.map((r) => r.id)}::bigint[])`,
        )
      : Promise.resolve([]),
    model.customFields && wants(how.select, 'custom_fields') ? ctx.extras.customFields(model.label) : Promise.resolve([]),
  ]);
  page.cfDefs = defs;
  if (!tagRows.length) return;
  const tags = await tagsOf(ctx, rows, tagRows.map((t) => Number(t.tag_id)), how.base);
  for (const t of tagRows) {
    const tag = tags.get(Number(t.tag_id));
    if (!tag) continue;
    const list = page.tags.get(Number(t.object_id)) ?? [];
    list.push(tag as unknown as Row);
    page.tags.set(Number(t.object_id), list);
  }
  for (const list of page.tags.values()) list.sort((a, b) => String(a.name).localeCompare(String(b.name)));
}

/** Nested tags by id: those the page's statement read from the projection (folded-relations.ts), the others asked of extras. */
async function tagsOf(ctx: ServiceContext, rows: Row[], ids: number[], base: string): Promise<Map<number, NestedTag>> {
  const folded = foldedTags(rows, base);
  if (!folded) return ctx.extras.tags(ids, base);
  const missing = ids.filter((id) => !folded.has(id));
  if (missing.length) for (const [id, tag] of await ctx.extras.tags(missing, base, true)) folded.set(id, tag);
  return folded;
}

/** Object and multi-object custom fields read as nested objects, one batch per object type. */
async function loadCustomFieldObjects(ctx: ServiceContext, rows: Row[], how: Representation, page: PageData): Promise<void> {
  const wanted = new Map<string, number[]>();
  for (const d of objectFieldDefs(page)) {
    for (const r of rows) {
      const v = ((r.custom_field_data ?? {}) as Row)[d.name];
      const list = Array.isArray(v) ? v : v === null || v === undefined ? [] : [v];
      wanted.set(d.object_type!, [...(wanted.get(d.object_type!) ?? []), ...list.map(Number)]);
    }
  }
  await eachOf(how, [...wanted], async ([t, list]) => void page.cfObjects.set(t, await nestedFor(ctx, t, list, how.base, how.q).catch(() => new Map())));
}

const objectFieldDefs = (page: PageData) => page.cfDefs.filter((d) => (d.type === 'object' || d.type === 'multiobject') && d.object_type);

/** A field a row does not show (no pair allocated per field and row). */
const HIDDEN = Symbol('hidden');

/** One field of a row, as the mode shows it (relations from the page's loaded objects); HIDDEN when not shown. */
function renderField(model: ModelDef, name: string, row: Row, mode: Mode, page: PageData): unknown {
  const field = model.fields[name];
  if (!field) {
    if (name === '_depth') return row._depth;
    if (isTimestamp(model, name)) return isoDateTime(row[name]);
    if (name in model.counts && row[`__count_${name}`] !== undefined) return Number(row[`__count_${name}`]);
    return HIDDEN;
  }
  if (field.type === 'fk') {
    const id = row[`${name}_id`];
    if (field.pk) return id === null || id === undefined ? null : Number(id);
    const obj = id === null || id === undefined ? null : (page.related.get(name)?.get(Number(id)) ?? null);
    return field.readAs && mode !== 'full' ? ((obj?.[field.readAs] as unknown) ?? null) : obj;
  }
  if (field.type === 'm2m') {
    const objs = (page.m2m.get(name)?.get(Number(row.id)) ?? []).map((id) => page.related.get(name)?.get(id)).filter(Boolean) as Row[];
    if (field.write === 'slug') return objs.map((o) => o.slug);
    return field.readAs && mode !== 'full' ? objs.map((o) => o[field.readAs!]) : objs;
  }
  if (field.type === 'generic') {
    const t = row[field.typeField] as string | null;
    const id = row[field.idField];
    return t && id !== null ? (page.generic.get(name)?.get(t)?.get(Number(id)) ?? null) : null;
  }
  if (field.virtual) return row[name] ?? null;
  if (field.type === 'choice' && field.briefPlain && mode !== 'full') return row[name] === '' || row[name] === undefined ? null : row[name];
  return renderScalar(field, row[name]);
}

/** Each count's key and the column it is read as, once per model (no key built per row). */
const countKeys = new WeakMap<ModelDef, [string, string][]>();
function countColumnsOf(model: ModelDef): [string, string][] {
  let keys = countKeys.get(model);
  if (!keys) countKeys.set(model, (keys = Object.keys(model.counts).map((name) => [name, `__count_${name}`])));
  return keys;
}

/** What only the full form shows: tags, custom fields (object ones nested), timestamps, counts, depth. */
function addFullKeys(model: ModelDef, row: Row, rep: Row, page: PageData, depthFromRow: boolean): void {
  if (model.tags) rep.tags = page.tags.get(Number(row.id)) ?? [];
  if (model.customFields) {
    const cf = renderCustomFields(page.cfDefs, row.custom_field_data);
    for (const d of objectFieldDefs(page)) {
      const found = page.cfObjects.get(d.object_type!);
      const v = cf[d.name];
      if (Array.isArray(v)) cf[d.name] = v.map((id) => found?.get(Number(id)) ?? null).filter(Boolean);
      else if (v !== null && v !== undefined) cf[d.name] = found?.get(Number(v)) ?? null;
    }
    rep.custom_fields = cf;
  }
  if (model.timestamps) {
    rep.created = model.createdAsDate ? (isoDateTime(row.created)?.slice(0, 10) ?? null) : isoDateTime(row.created);
    rep.last_updated = isoDateTime(row.last_updated);
  }
  for (const [name, column] of countColumnsOf(model)) {
    const n = row[column];
    if (n !== undefined) rep[name] = Number(n);
  }
  if (depthFromRow) rep._depth = row._depth;
}

/**
 * Builds representations for a page of rows with a fixed number of queries:
 * one per related model, one for tags, none per row.
 */
export async function represent(ctx: ServiceContext, model: ModelDef, rows: Row[], how: Representation): Promise<Row[]> {
  if (rows.length === 0) return [];
  const { mode, base, q, select } = how;
  // `fields=` / `omit=`: what is not shown is not computed (relations, tags, custom fields)
  const names = fieldsToCompute(model, fieldsFor(model, mode), select);
  const page: PageData = { related: new Map(), m2m: new Map(), generic: new Map(), contexts: new Map(), tags: new Map(), cfDefs: [], cfObjects: new Map() };
  const relationsLoaded = loadRelations(ctx, model, rows, names, how, page);
  relationsLoaded.catch(() => undefined); // awaited below; this only keeps an early failure from going unhandled
  if (q) await relationsLoaded;
  // config contexts: one statement for the page (config-context.ts)
  const showContext = mode === 'full' && !!model.configContext && !how.excludeConfigContext && wants(select, CONFIG_CONTEXT_KEY);
  const contextsLoaded = showContext ? configContexts(ctx, model, rows, q ?? ctx.db) : Promise.resolve(new Map<number, Row>());
  contextsLoaded.catch(() => undefined);
  if (q) await contextsLoaded;
  if (mode === 'full') await loadTagsAndFields(ctx, model, rows, how, page);
  await relationsLoaded;
  page.contexts = await contextsLoaded;
  if (objectFieldDefs(page).length) await loadCustomFieldObjects(ctx, rows, how, page);

  const urlPrefix = listUrl(ctx, model, base);
  const m2m = mode === 'full' ? names.filter((name) => model.fields[name]?.type === 'm2m') : [];
  // the full form of a page without a selection: fast-mode objects of a fixed layout (shapes.ts)
  const Shape = mode === 'full' && !select ? fullShape(model, names) : null;
  // a tree's depth comes from the row unless a field of that name showed it
  const depthFromRow = model.tree && !names.includes('_depth');
  const out = rows.map((row) => {
    const rep: Row = Shape ? new Shape() : {};
    rep.id = Number(row.id);
    rep.url = `${urlPrefix}${String(row.id)}/`;
    rep.display = '';
    for (const name of names) {
      const value = renderField(model, name, row, mode, page);
      if (value !== HIDDEN) rep[name] = value;
    }
    if (mode === 'full') addFullKeys(model, row, rep, page, depthFromRow);
    // a row read for a selection holds only the shown fields' columns: display is computed only when shown
    if (wants(select, 'display')) rep.display = model.display(row, rep);
    if (Shape) dropUnset(rep);
    const shown = showContext ? placeConfigContext(model, rep, page.contexts.get(Number(row.id)) ?? {}) : rep;
    // linkedIds answers undefined for a representation with no m2m field either way: nothing to keep then
    if (m2m.length) {
      const lists: Record<string, number[]> = {};
      for (const name of m2m) lists[name] = page.m2m.get(name)?.get(Number(row.id)) ?? [];
      linked.set(shown, lists);
    }
    return shown;
  });
  if (model.hooks.decorate) await model.hooks.decorate(rows, out, { brief: mode !== 'full', service: ctx, q: q ?? ctx.db, base, wants: (field) => wants(select, field) });
  return select ? out.map((rep) => project(rep, select)) : out;
}

