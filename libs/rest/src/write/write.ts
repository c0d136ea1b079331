import { Conflict, ValidationError } from '@inventory/core';
import { sql, raw, ident, join } from '@inventory/filtering';
import {
  applyCustomFields,
  type CustomFieldDef,
  columnOf,
  type FieldDef,
  type GenericField,
  type ManyField,
  type RefResult,
  type RelationField,
  pyType,
  type ModelDef,
  type ServiceContext,
  type Row,
  type Saved,
  type Touched,
  type WriteContext,
  type Queryable,
  type Tx,
  memo,
  TAGGED_ITEM_TABLE,
  hashKey,
  uniqueIndexName,
  withNaturalKeys,
} from '../model';
import { refShapeError, resolveRefs } from './relations';
import { guardReference } from '../projections';
import { represent } from '../read';
import { capture, noteTouched } from './changes';
import { uniqueErrors } from './unique';
import { validateScalars, type WriteMode } from './validation';

export interface Prepared {
  /** Column values to store (only what the request sets, plus defaults on create). */
  columns: Row;
  m2m: Map<string, number[]>;
  tags?: number[];
  /** The row the unique rules compare, when `prepare` left them to its caller. */
  unique?: Row;
}

type Errors = Record<string, unknown>;


/** A JSON object (not an array, not null): what a request body or a JSON field's object must be. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** DRF's PrimaryKeyRelatedField: an integer (or a numeric string) only. */
function pkShapeError(value: unknown): string | null {
  if ((typeof value === 'number' && Number.isSafeInteger(value)) || (typeof value === 'string' && /^\d{1,15}$/.test(value))) return null;
  return `Incorrect type. Expected pk value, received ${pyType(value)}.`;
}

export function notADict(value: unknown): ValidationError {
  return new ValidationError({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${pyType(value)}.`] });
}

function defaultOf(field: FieldDef): unknown {
  const d = field.default;
  return typeof d === 'function' ? (d as () => unknown)() : d;
}

/**
 * Validates one object of a write and turns it into column values:
 * types and lengths (joi), relations (resolved in batches), tags, custom
 * fields, uniqueness and the model's own rules. Throws a ValidationError
 * shaped `{"field": ["msg"]}`.
 */
/**
 * Validates and resolves one object's body into what to store. `deferUnique`
 * leaves the unique rules to the caller, who checks a bulk create's rows
 * together (`uniqueErrors`) against the returned `unique` row.
 */
export async function prepare(
  ctx: ServiceContext,
  model: ModelDef,
  input: unknown,
  mode: WriteMode,
  existing: Row | null,
  wctx: WriteContext,
  opts: { deferUnique?: boolean } = {},
): Promise<Prepared> {
  if (!isPlainObject(input)) throw notADict(input);
  const body = withAliases(model, input);
  const { values, errors } = validateScalars(model, mode, body);
  const draft: Draft = { ctx, wctx, body, mode, columns: {}, m2m: new Map(), errs: errors, tasks: [] };
  for (const [name, field] of Object.entries(model.fields)) {
    if (field.readOnly) continue;
    if (field.type === 'fk') draftReference(draft, name, field);
    else if (field.type === 'm2m') draftLinks(draft, name, field);
    else draftColumn(draft, name, field, values);
  }
  const tags = model.tags ? draftTags(draft, model) : undefined;
  // one after another: they share the write's transaction (one connection)
  for (const task of draft.tasks) await task();
  if (model.customFields && !draft.errs.custom_fields) await draftCustomFields(draft, model, existing);
  const { columns, m2m, errs } = draft;
  if (Object.keys(errs).length) throw new ValidationError(errs);

  const merged: Row = { ...(existing ?? {}), ...columns };
  // what the model's rules see: the many-to-many lists this request writes, as ids (a VM interface's tagged VLANs)
  for (const [name, ids] of m2m) merged[name] = ids;
  if (!opts.deferUnique) await checkUnique(ctx, model, merged, existing ? Number(existing.id) : null, wctx.tx);
  if (model.tree) await checkTreeParent(ctx, model, merged, existing, wctx.tx);
  if (model.hooks.validate) await model.hooks.validate(merged, existing, wctx, body);
  if (model.hooks.beforeSave) await model.hooks.beforeSave(columns, existing, wctx);
  return { columns, m2m, tags: tags?.ids, ...(opts.deferUnique ? { unique: merged } : {}) };
}

/** The body with each deprecated alias a write gave moved to its field (unless the field itself is given). */
function withAliases(model: ModelDef, input: Row): Row {
  let body = input;
  for (const [name, field] of Object.entries(model.fields)) {
    if (field.aliasOf && name in body && !(field.aliasOf in body)) body = { ...body, [field.aliasOf]: body[name] };
  }
  return body;
}

/** One object of a write being prepared: what is stored so far, the errors, and the lookups still to run. */
interface Draft {
  ctx: ServiceContext;
  wctx: WriteContext;
  body: Row;
  mode: WriteMode;
  columns: Row;
  m2m: Map<string, number[]>;
  errs: Errors;
  /** Lookups (references, tags), run after every field is read. */
  tasks: (() => Promise<void>)[];
}

const given = (d: Draft, name: string) => Object.prototype.hasOwnProperty.call(d.body, name);

/** A plain column: the validated value, or the default on create. */
function draftColumn(d: Draft, name: string, field: FieldDef, values: Row): void {
  const column = columnOf(name, field);
  if (!column) return;
  if (given(d, name)) {
    if (!d.errs[name]) d.columns[column] = values[name];
  } else if (d.mode === 'create' && field.default !== undefined) d.columns[column] = defaultOf(field);
  else if (d.mode === 'create' && field.type === 'choice' && field.blank) d.columns[column] = '';
}

/** A foreign key: required and null rules, the reference's shape, then its lookup (and PROTECT's guard). */
function draftReference(d: Draft, name: string, field: RelationField): void {
  const column = columnOf(name, field)!;
  if (!given(d, name)) {
    if (d.mode !== 'patch' && field.required && field.default === undefined) d.errs[name] = ['This field is required.'];
    else if (d.mode === 'create' && field.default !== undefined) d.columns[column] = defaultOf(field);
    return;
  }
  const value = d.body[name];
  if (value === null || value === '') {
    if (field.nullable) d.columns[column] = null;
    else d.errs[name] = ['This field may not be null.'];
    return;
  }
  const problem = field.pk ? pkShapeError(value) : refShapeError(value);
  if (problem) {
    d.errs[name] = [problem];
    return;
  }
  d.tasks.push(async () => {
    const [r] = await memo(d.wctx, `ref:${field.to}:${JSON.stringify(value)}`, () => resolveRefs(d.ctx, field.to, [value], d.wctx.tx));
    if ('error' in r) {
      d.errs[name] = [field.pk ? `Invalid pk "${String(value)}" - object does not exist.` : r.error];
      return;
    }
    // another service's object this one PROTECTs: its delete and this reference never both succeed
    if (field.onDelete === 'PROTECT') await guardReference(d.ctx, field.to, r.id, d.wctx);
    d.columns[column] = r.id;
  });
}

/** A many-to-many list: a list, of the shape its write form takes (ids, slugs, attribute sets), each resolved. */
function draftLinks(d: Draft, name: string, field: ManyField): void {
  if (!given(d, name)) return;
  const value = d.body[name];
  if (!Array.isArray(value)) {
    d.errs[name] = [`Expected a list of items but got type "${pyType(value)}".`];
    return;
  }
  if (field.write === 'pk') {
    const bad = value.find((v) => !(typeof v === 'number' && Number.isInteger(v)) && !(typeof v === 'string' && /^\d+$/.test(v)));
    if (bad !== undefined) {
      d.errs[name] = [`Incorrect type. Expected pk value, received ${pyType(bad)}.`];
      return;
    }
  }
  const ids = (results: RefResult[]) => [...new Set(results.map((r) => (r as { id: number }).id))];
  if (field.write === 'slug') {
    // DRF's SlugRelatedField: strings only, each an existing slug
    if (value.some((v) => typeof v !== 'string')) {
      d.errs[name] = ['Invalid value.'];
      return;
    }
    d.tasks.push(async () => {
      const results = await resolveRefs(d.ctx, field.to, (value as string[]).map((slug) => ({ slug })), d.wctx.tx);
      const missing = results.findIndex((r) => 'error' in r);
      if (missing >= 0) d.errs[name] = [`Object with slug=${String(value[missing])} does not exist.`];
      else d.m2m.set(name, ids(results));
    });
    return;
  }
  d.tasks.push(async () => {
    const results = await resolveRefs(d.ctx, field.to, value, d.wctx.tx);
    const missing = results.findIndex((r) => 'error' in r);
    if (missing < 0) d.m2m.set(name, ids(results));
    else d.errs[name] = field.write === 'pk' ? [`Invalid pk "${String(value[missing])}" - object does not exist.`] : results.map((r) => ('error' in r ? [r.error] : {}));
  });
}

/** Tags: a list of references, resolved by extras (the ids, once the tasks ran; none when the write leaves them). */
function draftTags(d: Draft, model: ModelDef): { ids?: number[] } | undefined {
  if (!given(d, 'tags')) return undefined;
  const value = d.body.tags;
  const out: { ids?: number[] } = {};
  const problems = Array.isArray(value) ? value.map(refShapeError) : [];
  if (!Array.isArray(value)) d.errs.tags = [`Expected a list of items but got type "${pyType(value)}".`];
  else if (problems.some(Boolean)) d.errs.tags = problems.map((p) => (p ? [p] : {}));
  else {
    d.tasks.push(async () => {
      const results = await memo(d.wctx, `tags:${JSON.stringify(value)}`, () => d.ctx.extras.resolveTags(value, model.label));
      if (results.some((r) => 'error' in r)) d.errs.tags = results.map((r) => ('error' in r ? [r.error] : {}));
      else out.ids = [...new Set(results.map((r) => (r as { id: number }).id))];
    });
  }
  return out;
}

/** Custom fields: the values written over those stored, checked against extras' definitions (defaults on create). */
async function draftCustomFields(d: Draft, model: ModelDef, existing: Row | null): Promise<void> {
  try {
    // once per write: a bulk create's items share the definitions
    const defs = await memo(d.wctx, `custom-fields:${model.label}`, () => d.ctx.extras.customFields(model.label));
    const input = await resolveObjectCustomFields(d.ctx, defs, d.body.custom_fields, d.wctx);
    const stored = existing ? ((existing.custom_field_data as Row) ?? {}) : null;
    if (input !== undefined || !existing) d.columns.custom_field_data = JSON.stringify(applyCustomFields(defs, input, stored));
  } catch (err) {
    if (err instanceof ValidationError && !Array.isArray(err.errors)) Object.assign(d.errs, err.errors);
    else throw err;
  }
}

/** Object custom field values may be written as ids or attribute sets; store ids (A.12, A.13). */
async function resolveObjectCustomFields(ctx: ServiceContext, defs: CustomFieldDef[], input: unknown, wctx: WriteContext): Promise<unknown> {
  if (!isPlainObject(input)) return input;
  const out = { ...input };
  for (const d of defs) {
    if ((d.type !== 'object' && d.type !== 'multiobject') || !d.object_type || !(d.name in out)) continue;
    const value = out[d.name];
    if (value === null || (Array.isArray(value) && value.length === 0)) continue;
    const refs = d.type === 'multiobject' ? value : [value];
    if (!Array.isArray(refs) || refs.some((r) => typeof r !== 'number' && !isPlainObject(r))) continue; // the type check reports it
    if (refs.some((r) => refShapeError(r))) throw new ValidationError({ custom_fields: [`Unknown related object(s): ${JSON.stringify(value)}`] });
    const results = await resolveRefs(ctx, d.object_type, refs, wctx.tx);
    if (results.some((r) => 'error' in r)) throw new ValidationError({ custom_fields: [`Unknown related object(s): ${JSON.stringify(value)}`] });
    const ids = results.map((r) => (r as { id: number }).id);
    out[d.name] = d.type === 'multiobject' ? ids : ids[0];
  }
  return out;
}

/** Unique fields and unique-together rules, checked before writing so the error names the field. */
async function checkUnique(ctx: ServiceContext, model: ModelDef, row: Row, selfId: number | null, q: Queryable): Promise<void> {
  const [errs] = await uniqueErrors(ctx, model, [row], selfId, q);
  if (Object.keys(errs).length) throw new ValidationError(errs);
}

function jsonColumns(model: ModelDef, columns: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(columns)) {
    const field = model.fields[k];
    out[k] = field && field.type === 'json' && v !== null && v !== undefined ? JSON.stringify(v) : v;
  }
  return out;
}

/** A unique violation the pre-check could not see (same batch, or a race) becomes the rule's 400. */
export function uniqueViolation(model: ModelDef, err: unknown): never {
  const e = err as { code?: string; constraint?: string; detail?: string };
  if (e.code === '23505') {
    const i = model.unique.findIndex((u) => uniqueIndexName(model, u) === e.constraint);
    if (i >= 0) throw new ValidationError({ [model.unique[i].errorField ?? '__all__']: [model.unique[i].message] });
    const field = Object.keys(model.fields).find((f) => e.constraint?.includes(f));
    throw new ValidationError({ [field ?? '__all__']: [`${model.verboseName} with this ${field ?? 'value'} already exists.`] });
  }
  throw err;
}

export async function insert(ctx: ServiceContext, model: ModelDef, p: Prepared, tx: Tx): Promise<number> {
  const cols = jsonColumns(model, withNaturalKeys(model, p.columns));
  const names = Object.keys(cols);
  const table = raw(ctx.db.table(model.table));
  const stmt = names.length
    ? sql`INSERT INTO ${table} (${join(names.map((n) => ident(n)), ', ')}) VALUES (${join(names.map((n) => sql`${cols[n]}`), ', ')}) RETURNING id`
    : sql`INSERT INTO ${table} DEFAULT VALUES RETURNING id`;
  const [row] = await tx.query(stmt).catch((err) => uniqueViolation(model, err));
  const id = Number(row.id);
  if (model.tree) await updateTree(ctx, model, id, tx);
  await writeLinks(ctx, model, id, p, tx);
  return id;
}

/**
 * Inserts a bulk create's rows with one statement (a tree's rows one at a
 * time: each needs its path), their links after; the ids in the rows' order.
 * A unique violation the pre-check could not see (a race) is found again
 * row by row, so the error names the row.
 */
export async function insertMany(ctx: ServiceContext, model: ModelDef, prepared: Prepared[], tx: Tx): Promise<number[]> {
  if (model.tree || prepared.length < 2) return insertEach(ctx, model, prepared, tx);
  const rows = prepared.map((p) => jsonColumns(model, withNaturalKeys(model, p.columns)));
  const names = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (!names.length) return insertEach(ctx, model, prepared, tx);
  const values = rows.map((r) => sql`(${join(names.map((n) => (n in r ? sql`${r[n]}` : raw('DEFAULT'))), ', ')})`);
  await tx.query(raw('SAVEPOINT bulk_insert'));
  let inserted: Row[];
  try {
    inserted = await tx.query(sql`INSERT INTO ${raw(ctx.db.table(model.table))} (${join(names.map((n) => ident(n)), ', ')}) VALUES ${join(values, ', ')} RETURNING id`);
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err;
    await tx.query(raw('ROLLBACK TO SAVEPOINT bulk_insert'));
    return insertEach(ctx, model, prepared, tx);
  }
  const ids = insertedIds(prepared, inserted);
  await writeLinksMany(ctx, model, ids, prepared, tx);
  return ids;
}

/**
 * The many-to-many links and tags of freshly inserted rows, one INSERT per
 * link table for all of them (not two statements per row and table: an
 * import's interfaces each name four empty lists). New rows have no links to
 * clear: the link tables cascade from their owners, and a deleted object's
 * tags go with it (`remove`).
 */
async function writeLinksMany(ctx: ServiceContext, model: ModelDef, ids: number[], prepared: Prepared[], tx: Tx): Promise<void> {
  const pairs = (list: (i: number) => number[] | undefined) => {
    const owners: number[] = [];
    const targets: number[] = [];
    prepared.forEach((_, i) => list(i)?.forEach((t) => (owners.push(ids[i]), targets.push(t))));
    return { owners, targets };
  };
  for (const [name, field] of Object.entries(model.fields)) {
    if (field.type !== 'm2m') continue;
    const { owners, targets } = pairs((i) => prepared[i].m2m.get(name));
    if (!owners.length) continue;
    const through = raw(ctx.db.table(field.through));
    await tx.query(sql`INSERT INTO ${through} (owner_id, target_id) SELECT * FROM unnest(${owners}::bigint[], ${targets}::bigint[])`);
  }
  const { owners, targets } = pairs((i) => prepared[i].tags);
  if (!owners.length) return;
  const tagged = raw(ctx.db.table(TAGGED_ITEM_TABLE));
  await tx.query(sql`INSERT INTO ${tagged} (content_type, object_id, tag_id) SELECT ${model.label}, * FROM unnest(${owners}::bigint[], ${targets}::bigint[])`);
}

/**
 * The ids of inserted rows in the rows' order: those an import gave (kept
 * ids) where given; the others come from the sequence in the order the rows
 * are inserted, so ascending is their order.
 */
function insertedIds(prepared: Prepared[], inserted: Row[]): number[] {
  const given = prepared.map((p) => (p.columns.id === undefined ? undefined : Number(p.columns.id)));
  const kept = new Set(given.filter((id) => id !== undefined));
  const drawn = inserted.map((r) => Number(r.id)).filter((id) => !kept.has(id)).sort((a, b) => a - b);
  return given.map((id) => id ?? drawn.shift()!);
}

/** One INSERT per row; a unique violation names its row (the bulk error is a list). */
async function insertEach(ctx: ServiceContext, model: ModelDef, prepared: Prepared[], tx: Tx): Promise<number[]> {
  const ids: number[] = [];
  for (const [i, p] of prepared.entries()) {
    try {
      ids.push(await insert(ctx, model, p, tx));
    } catch (err) {
      if (prepared.length < 2 || !(err instanceof ValidationError) || Array.isArray(err.errors)) throw err;
      throw new ValidationError(prepared.map((_, j) => (j === i ? (err.errors as Record<string, unknown>) : {})));
    }
  }
  return ids;
}

export async function update(ctx: ServiceContext, model: ModelDef, id: number, p: Prepared, existing: Row, wctx: WriteContext): Promise<void> {
  const { tx } = wctx;
  const cols = jsonColumns(model, withNaturalKeys(model, p.columns));
  const sets = Object.keys(cols).map((n) => sql`${ident(n)} = ${cols[n]}`);
  if (model.timestamps) sets.push(raw('last_updated = now()'));
  // every write is a new version, tags-only and unchanged saves included (as NetBox's last_updated)
  sets.push(raw('_version = _version + 1'));
  await tx.query(sql`UPDATE ${raw(ctx.db.table(model.table))} SET ${join(sets, ', ')} WHERE id = ${id}`).catch((err) => uniqueViolation(model, err));
  if (model.tree && ('parent_id' in cols || 'name' in cols)) await updateTree(ctx, model, id, tx, existing, wctx);
  await writeLinks(ctx, model, id, p, tx);
}

/** The model's `afterSave` over what a create or an update stored. */
export async function afterSave(model: ModelDef, saved: Saved[], wctx: WriteContext): Promise<void> {
  if (saved.length && model.hooks.afterSave) await model.hooks.afterSave(saved, wctx);
}

/** An update's links: each list it names replaces the stored one (cleared here, then inserted as a create's are). */
async function writeLinks(ctx: ServiceContext, model: ModelDef, id: number, p: Prepared, tx: Tx): Promise<void> {
  for (const name of p.m2m.keys()) {
    const field = model.fields[name];
    if (field.type === 'm2m') await tx.query(sql`DELETE FROM ${raw(ctx.db.table(field.through))} WHERE owner_id = ${id}`);
  }
  if (p.tags) await tx.query(sql`DELETE FROM ${raw(ctx.db.table(TAGGED_ITEM_TABLE))} WHERE content_type = ${model.label} AND object_id = ${id}`);
  await writeLinksMany(ctx, model, [id], [p], tx);
}

/**
 * Writes of a tree model are serialised: a move checks for cycles against
 * the tree as it is, and two moves (A under B while B goes under A) cannot
 * both pass. The write pipeline (runWrite) takes this lock before anything
 * else of the write; trees are small and rarely written, and reads never wait.
 */
export async function lockTree(tx: Tx, model: ModelDef): Promise<void> {
  await tx.query(sql`SELECT pg_advisory_xact_lock(${hashKey(model.label)})`);
}

/** Keeps depth, ancestor path and tree sort key on write (under lockTree), so reads never walk the tree. */
async function updateTree(ctx: ServiceContext, model: ModelDef, id: number, tx: Tx, existing?: Row, wctx?: WriteContext): Promise<void> {
  const table = raw(ctx.db.table(model.table));
  const [node] = await tx.query(
    sql`SELECT n.id, n.name, n._depth, p._path AS ppath, p._tree_sort AS psort, p._depth AS pdepth FROM ${table} n LEFT JOIN ${table} p ON p.id = n.parent_id WHERE n.id = ${id}`,
  );
  const depth = node.pdepth === null ? 0 : Number(node.pdepth) + 1;
  const key = `${String(node.name)} ${String(id).padStart(20, '0')}`;
  const [updated] = await tx.query(
    sql`UPDATE ${table} SET _depth = ${depth}, _path = COALESCE(${node.ppath}::bigint[], '{}') || ${id}::bigint, _tree_sort = COALESCE(${node.psort}::text[], '{}') || ${key}::text WHERE id = ${id} RETURNING _path, _tree_sort`,
  );
  if (existing && wctx) {
    // the descendants move too: each is a changed object with its own event
    const descendants = await tx.query(sql`SELECT * FROM ${table} WHERE _path @> ARRAY[${id}]::bigint[] AND id <> ${id} ORDER BY id FOR UPDATE`);
    if (!descendants.length) return;
    await capture(ctx, model, wctx, descendants);
    noteTouched(wctx, model, { updated: descendants });
    const oldDepth = Number(existing._depth);
    const from = oldDepth + 2;
    await tx.query(
      sql`UPDATE ${table} SET _path = ${updated._path}::bigint[] || _path[${from}:], _tree_sort = ${updated._tree_sort}::text[] || _tree_sort[${from}:], _depth = ${depth} + (_depth - ${oldDepth}), _version = _version + 1 WHERE _path @> ARRAY[${id}]::bigint[] AND id <> ${id}`,
    );
  }
}

/** The tree rule every tree model shares: a node may not become its own ancestor. */
export async function checkTreeParent(ctx: ServiceContext, model: ModelDef, row: Row, existing: Row | null, q: Queryable): Promise<void> {
  if (!existing || row.parent_id === null || row.parent_id === undefined) return;
  // NetBox's NestedGroupModel.clean(): "Cannot assign self or child region as parent."
  const refused = `Cannot assign self or child ${model.verboseName} as parent.`;
  if (Number(row.parent_id) === Number(existing.id)) throw ValidationError.field('parent', refused);
  const hit = await q.query(
    sql`SELECT 1 FROM ${raw(ctx.db.table(model.table))} WHERE id = ${row.parent_id} AND _path @> ARRAY[${existing.id}]::bigint[]`,
  );
  if (hit.length) throw ValidationError.field('parent', refused);
}

/**
 * The objects here that a PROTECT relation keeps from being deleted (the
 * targets may be this service's or, for `/internal/dependents`, another's),
 * as NetBox names them: `<display> (<id>)`.
 */
export async function protectingObjects(ctx: ServiceContext, label: string, ids: number[], q: Queryable = ctx.db): Promise<string[]> {
  const found: string[] = [];
  for (const other of ctx.models.values()) {
    for (const [name, field] of Object.entries(other.fields)) {
      if (field.type !== 'fk' || field.virtual || field.to !== label || field.onDelete !== 'PROTECT') continue;
      // a reference to the model itself protects nothing that goes in the same delete (Django's RESTRICT: a
      // virtual machine's child interfaces go with their parent when the machine's interfaces are deleted)
      const self = other.label === label ? sql` AND NOT (id = ANY(${ids}::bigint[]))` : raw('');
      const rows = await q.query(sql`SELECT * FROM ${raw(ctx.db.table(other.table))} WHERE ${ident(`${name}_id`)} = ANY(${ids}::bigint[])${self} ORDER BY id`);
      // full representations, so the display names its related objects as NetBox's str() does
      for (const r of await represent(ctx, other, rows, { mode: 'full', base: '', q })) found.push(`${String(r.display)} (${String(r.id)})`);
    }
  }
  // objects a generic relation attaches to these are deleted with them: what keeps those keeps these (a site while
  // the VLAN groups scoped to it hold VLANs), as Django's collector refuses a cascade that reaches a PROTECT
  for (const { model: other, field } of protectedGenerics(ctx, label)) {
    const rows = await q.query(sql`SELECT id FROM ${raw(ctx.db.table(other.table))} WHERE ${ident(field.typeField)} = ${label} AND ${ident(field.idField)} = ANY(${ids}::bigint[])`);
    if (rows.length) found.push(...(await protectingObjects(ctx, other.label, rows.map((r) => Number(r.id)), q)));
  }
  return found;
}

/**
 * The generic relations that may attach objects to `label`'s objects (any
 * label when none is given) and whose objects a PROTECT relation of this
 * service keeps (a VLAN group's scope: its VLANs keep it).
 */
export function protectedGenerics(ctx: ServiceContext, label?: string): { model: ModelDef; name: string; field: GenericField }[] {
  const out: { model: ModelDef; name: string; field: GenericField }[] = [];
  const kept = (target: string) =>
    [...ctx.models.values()].some((m) => Object.values(m.fields).some((f) => f.type === 'fk' && !f.virtual && f.to === target && f.onDelete === 'PROTECT'));
  for (const model of ctx.models.values()) {
    for (const [name, field] of Object.entries(model.fields)) {
      if (field.type !== 'generic') continue;
      if (label !== undefined && !genericAllows(model, field, label)) continue;
      if (kept(model.label)) out.push({ model, name, field });
    }
  }
  return out;
}

/** Whether a generic relation may point at objects of `label` (its own rule, or its content-type field's). */
export function genericAllows(model: ModelDef, field: GenericField, label: string): boolean {
  const typeField = model.fields[field.typeField];
  const allowed = field.allowed ?? (typeField?.type === 'contenttype' ? typeField.allowed : undefined);
  return allowed ? allowed(label) : true;
}

/** NetBox's 409 for a delete that protected objects refuse. */
export function dependentsConflict(found: string[]): Conflict {
  return new Conflict(`Unable to delete object. ${found.length} dependent objects were found: ${found.join(', ')}`);
}

/** Refuses (409) when local PROTECT relations still point at the objects. */
export async function checkProtected(ctx: ServiceContext, model: ModelDef, ids: number[], q: Queryable): Promise<void> {
  const found = await protectingObjects(ctx, model.label, ids, q);
  if (found.length) throw dependentsConflict(found);
}

/**
 * One relation's delete rule, applied to the objects of `other` whose
 * `name` points at deleted objects (but for `except`): CASCADE deletes them,
 * SET_NULL clears the reference (an update). Locked and captured first;
 * returns what it touched, as the rows were.
 */
export async function applyReferrerRule(
  ctx: ServiceContext,
  other: ModelDef,
  name: string,
  onDelete: 'CASCADE' | 'SET_NULL',
  ids: number[],
  wctx: WriteContext,
  except: number[] = [],
): Promise<Touched> {
  const column = ident(`${name}_id`);
  const table = raw(ctx.db.table(other.table));
  const rows = await wctx.tx.query(sql`SELECT * FROM ${table} WHERE ${column} = ANY(${ids}::bigint[]) AND NOT (id = ANY(${except}::bigint[])) ORDER BY id FOR UPDATE`);
  if (!rows.length) return {};
  await capture(ctx, other, wctx, rows);
  if (onDelete === 'CASCADE') {
    await remove(ctx, other, rows.map((r) => Number(r.id)), wctx);
    return { deleted: rows };
  }
  const stamp = other.timestamps ? raw(', last_updated = now()') : raw('');
  await wctx.tx.query(sql`UPDATE ${table} SET ${column} = NULL, _version = _version + 1${stamp} WHERE id = ANY(${rows.map((r) => r.id)}::bigint[])`);
  return { updated: rows };
}

/**
 * Objects of `other` whose m2m field `name` links to deleted objects lose
 * those links, each an update (its own version, change record and event):
 * what the link tables say is also what referrers project (a config
 * context that named only a deleted region then matches every object, as
 * in NetBox, where the link goes with the region).
 */
export async function unlinkReferrers(ctx: ServiceContext, other: ModelDef, name: string, ids: number[], wctx: WriteContext): Promise<Touched> {
  const field = other.fields[name];
  if (field?.type !== 'm2m') return {};
  const through = raw(ctx.db.table(field.through));
  const table = raw(ctx.db.table(other.table));
  const rows = await wctx.tx.query(
    sql`SELECT * FROM ${table} WHERE id IN (SELECT owner_id FROM ${through} WHERE target_id = ANY(${ids}::bigint[])) ORDER BY id FOR UPDATE`,
  );
  if (!rows.length) return {};
  await capture(ctx, other, wctx, rows);
  await wctx.tx.query(sql`DELETE FROM ${through} WHERE target_id = ANY(${ids}::bigint[])`);
  const stamp = other.timestamps ? raw(', last_updated = now()') : raw('');
  await wctx.tx.query(sql`UPDATE ${table} SET _version = _version + 1${stamp} WHERE id = ANY(${rows.map((r) => r.id)}::bigint[])`);
  return { updated: rows };
}

/**
 * A log that its service writes itself (a read-only model: webhook
 * deliveries) has no change records or events: its rows that point at
 * deleted objects go (CASCADE), or lose the reference, with no event each.
 */
async function applyToLog(ctx: ServiceContext, log: ModelDef, name: string, onDelete: 'CASCADE' | 'SET_NULL', ids: number[], tx: Queryable): Promise<void> {
  const column = ident(`${name}_id`);
  const table = raw(ctx.db.table(log.table));
  if (onDelete === 'CASCADE') await tx.query(sql`DELETE FROM ${table} WHERE ${column} = ANY(${ids}::bigint[])`);
  else await tx.query(sql`UPDATE ${table} SET ${column} = NULL WHERE ${column} = ANY(${ids}::bigint[])`);
}

/** Deletes, through the engine, the objects of `model` that a generic relation attaches to deleted objects of `label` (contact assignments); the rows as they were. */
export async function removeGenericReferrers(
  ctx: ServiceContext,
  model: ModelDef,
  typeField: string,
  idField: string,
  label: string,
  ids: number[],
  wctx: WriteContext,
): Promise<Row[]> {
  const rows = await wctx.tx.query(
    sql`SELECT * FROM ${raw(ctx.db.table(model.table))} WHERE ${ident(typeField)} = ${label} AND ${ident(idField)} = ANY(${ids}::bigint[]) ORDER BY id FOR UPDATE`,
  );
  if (!rows.length) return rows;
  await capture(ctx, model, wctx, rows);
  await remove(ctx, model, rows.map((r) => Number(r.id)), wctx);
  return rows;
}

/**
 * Deletes objects with what depends on them in this service, applied here
 * rather than by the database's ON DELETE, so each cascaded object has its
 * change record and event: CASCADE referrers are deleted first, SET_NULL
 * referrers have the reference cleared (an update), PROTECT refuses (409).
 */
export async function remove(ctx: ServiceContext, model: ModelDef, ids: number[], wctx: WriteContext): Promise<void> {
  if (!ids.length) return;
  await checkProtected(ctx, model, ids, wctx.tx);
  if (model.hooks.beforeDelete) await model.hooks.beforeDelete(ids, wctx);
  for (const other of ctx.models.values()) {
    for (const [name, field] of Object.entries(other.fields)) {
      if (field.type !== 'fk' || field.virtual || field.to !== model.label || field.onDelete === 'PROTECT') continue;
      if (other.readOnly) {
        await applyToLog(ctx, other, name, field.onDelete, ids, wctx.tx);
        continue;
      }
      const touched = await applyReferrerRule(ctx, other, name, field.onDelete, ids, wctx, other === model ? ids : []);
      if (touched.deleted || touched.updated) noteTouched(wctx, other, touched);
    }
    // links to the deleted objects go with them; the objects that held them are updated (unless deleted with them)
    for (const [name, field] of Object.entries(other.fields)) {
      if (field.type !== 'm2m' || field.to !== model.label || other.readOnly || !field.removalIsChange) continue;
      const touched = await unlinkReferrers(ctx, other, name, ids, wctx);
      if (touched.updated) noteTouched(wctx, other, touched);
    }
  }
  const tagged = raw(ctx.db.table(TAGGED_ITEM_TABLE));
  await wctx.tx.query(sql`DELETE FROM ${tagged} WHERE content_type = ${model.label} AND object_id = ANY(${ids}::bigint[])`);
  await wctx.tx.query(sql`DELETE FROM ${raw(ctx.db.table(model.table))} WHERE id = ANY(${ids}::bigint[])`);
}
