import { type Sql, sql, raw, and, ident } from '@inventory/filtering';
import { columnOf, fieldOf, flattenAttrs, pyRepr, type RefResult, type ModelDef, type ServiceContext, type Queryable } from '../model';
import { applyRecords, projectedModels, projection, type ProjectionRecord } from '../projections';

const NOT_FOUND_ID = (id: unknown) => `Related object not found using the provided numeric ID: ${String(id)}`;
const UNRECOGNISED = (v: unknown) =>
  `Related objects must be referenced by numeric ID or by dictionary of attributes. Received an unrecognized value: ${typeof v === 'string' ? v : JSON.stringify(v)}`;

/** Keys an attribute set may never use: they would reach Object.prototype, not a field. */
const FORBIDDEN_KEYS = new Set(Object.getOwnPropertyNames(Object.prototype));
const MAX_ATTR_DEPTH = 5;

function attrsProblem(attrs: Record<string, unknown>, depth: number): string | null {
  if (depth > MAX_ATTR_DEPTH) return 'Related object attributes are nested too deeply.';
  for (const [key, value] of Object.entries(attrs)) {
    if (FORBIDDEN_KEYS.has(key) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return `Cannot resolve keyword '${key}' into field.`;
    if (value === null || typeof value === 'string' || typeof value === 'boolean') continue;
    if (typeof value === 'number') {
      if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) return `Invalid value for '${key}': ${String(value)}`;
      continue;
    }
    if (typeof value === 'object' && !Array.isArray(value)) {
      const p = attrsProblem(value as Record<string, unknown>, depth + 1);
      if (p) return p;
      continue;
    }
    return `Invalid value for '${key}': ${JSON.stringify(value)}`;
  }
  return null;
}

/**
 * What is wrong with the shape of a reference, decided before any lookup (and
 * so before any call to another service): an id must be a non-negative
 * integer that a bigint column can hold, an attribute set plain keys and
 * scalar or nested-set values. null when the shape is fine.
 */
export function refShapeError(ref: unknown): string | null {
  if (typeof ref === 'number') {
    if (!Number.isInteger(ref)) return UNRECOGNISED(ref);
    return Number.isSafeInteger(ref) && ref >= 0 ? null : NOT_FOUND_ID(ref);
  }
  if (typeof ref === 'string') {
    if (!/^\d+$/.test(ref)) return UNRECOGNISED(ref);
    return Number.isSafeInteger(Number(ref)) ? null : NOT_FOUND_ID(ref);
  }
  if (ref !== null && typeof ref === 'object' && !Array.isArray(ref)) return attrsProblem(ref as Record<string, unknown>, 1);
  return UNRECOGNISED(ref);
}

/** Condition for an attribute set on a local model, following relations (`{"site": {"name": "s1"}}`). */
export function attributeCondition(ctx: ServiceContext, model: ModelDef, attrs: Record<string, unknown>, alias: string): Sql {
  const parts: Sql[] = [];
  for (const [key, value] of Object.entries(attrs)) {
    if (key === 'id' || key === 'pk') {
      const id = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
      parts.push(typeof id === 'number' && Number.isSafeInteger(id) ? sql`${raw(alias)}.id = ${id}` : raw('FALSE'));
      continue;
    }
    const field = fieldOf(model, key);
    const column = field ? columnOf(key, field) : null;
    if (!field || (!column && field.type !== 'fk')) {
      const choices = ['id', ...Object.keys(model.fields)].sort().join(', ');
      throw new AttributeError(`Cannot resolve keyword '${key}' into field. Choices are: ${choices}`);
    }
    const col = sql`${raw(alias)}.${ident(column!)}`;
    if (field.type === 'fk' && value !== null && typeof value === 'object') {
      const target = ctx.models.get(field.to);
      if (!target) throw new AttributeError(`Cannot resolve keyword '${key}' across services.`);
      const sub = `${alias}_${key}`;
      parts.push(
        sql`${col} IN (SELECT ${raw(sub)}.id FROM ${raw(ctx.db.table(target.table))} ${raw(sub)} WHERE ${attributeCondition(ctx, target, value as Record<string, unknown>, sub)})`,
      );
    } else if (value === null) {
      parts.push(sql`${col} IS NULL`);
    } else {
      // compared as text: a value of the wrong type simply matches nothing, it never fails the statement (and with it the write's transaction)
      parts.push(sql`${col}::text = ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
    }
  }
  return and(parts);
}

export class AttributeError extends Error {}

/**
 * Resolves references to objects of a local model: ids (or numeric strings)
 * in one query, attribute sets one query each.
 */
export async function resolveLocal(ctx: ServiceContext, model: ModelDef, refs: unknown[], q: Queryable = ctx.db): Promise<RefResult[]> {
  const results: RefResult[] = new Array(refs.length);
  const ids = new Map<number, number[]>();
  for (let i = 0; i < refs.length; i++) {
    const ref = refs[i];
    const problem = refShapeError(ref);
    if (problem) {
      results[i] = { error: problem };
      continue;
    }
    // the shape is checked: an id (number or digits) or an attribute set
    if (typeof ref !== 'object') {
      const id = Number(ref);
      ids.set(id, [...(ids.get(id) ?? []), i]);
      continue;
    }
    const attrs = ref as Record<string, unknown>;
    const printed = pyRepr(flattenAttrs(attrs));
    try {
      const rows = await q.query(sql`SELECT t.id FROM ${raw(ctx.db.table(model.table))} t WHERE ${attributeCondition(ctx, model, attrs, 't')} LIMIT 2`);
      if (rows.length === 1) results[i] = { id: Number(rows[0].id) };
      else if (rows.length === 0) results[i] = { error: `Related object not found using the provided attributes: ${printed}` };
      else results[i] = { error: `Multiple objects match the provided attributes: ${printed}` };
    } catch (err) {
      if (!(err instanceof AttributeError)) throw err;
      results[i] = { error: err.message };
    }
  }
  if (ids.size) {
    const found = await q.query(sql`SELECT id FROM ${raw(ctx.db.table(model.table))} WHERE id = ANY(${[...ids.keys()]}::bigint[])`);
    const have = new Set(found.map((r) => Number(r.id)));
    for (const [id, positions] of ids) {
      for (const p of positions) results[p] = have.has(id) ? { id } : { error: NOT_FOUND_ID(id) };
    }
  }
  return results;
}

/**
 * References to another service's objects answered from this service's
 * projection: ids, and attribute sets of plain values (`{"slug": "acme"}`).
 * null where the projection cannot answer (a miss, or a nested attribute
 * set): the owner is asked for those.
 */
async function resolveProjected(ctx: ServiceContext, label: string, refs: unknown[], q: Queryable): Promise<(RefResult | null)[]> {
  const t = projection(ctx, label);
  const out: (RefResult | null)[] = refs.map(() => null);
  const ids = [...new Set(refs.filter((r) => typeof r !== 'object').map(Number))];
  // inside a write, what it resolves stays live until its commit: a tombstone arriving meanwhile waits for it, so the
  // delete rules applied after the tombstone find this write's reference (or the write waits, and finds the object gone)
  const lock = q === ctx.db ? raw('') : raw(' FOR SHARE');
  const live = new Set(
    ids.length ? (await q.query(sql`SELECT id FROM ${t} WHERE id = ANY(${ids}::bigint[]) AND NOT deleted${lock}`)).map((r) => Number(r.id)) : [],
  );
  for (let i = 0; i < refs.length; i++) {
    const ref = refs[i];
    if (typeof ref !== 'object') {
      if (live.has(Number(ref))) out[i] = { id: Number(ref) };
      continue;
    }
    const attrs = Object.entries(ref as Record<string, unknown>);
    if (!attrs.length || attrs.some(([, v]) => v !== null && typeof v === 'object')) continue;
    const conditions = attrs.map(([k, v]) =>
      k === 'id' || k === 'pk' ? sql`id::text = ${String(v)}` : v === null ? sql`data->${k} = 'null'::jsonb` : sql`data->>${k} = ${String(v)}`,
    );
    const rows = await q.query(sql`SELECT id FROM ${t} WHERE NOT deleted AND ${and(conditions)} LIMIT 2${lock}`);
    // one match answers; none may be an object made a moment ago, two may be a projection behind a rename: the owner decides
    if (rows.length === 1) out[i] = { id: Number(rows[0].id) };
  }
  return out;
}

/**
 * Resolves references to any model: locally; for another service's, from
 * this service's projection, the misses in one call to the owner (whose
 * answer is kept in the projection).
 */
export async function resolveRefs(ctx: ServiceContext, label: string, refs: unknown[], q?: Queryable): Promise<RefResult[]> {
  if (refs.length === 0) return [];
  const local = ctx.models.get(label);
  if (local) return resolveLocal(ctx, local, refs, q);
  // malformed references never leave the service: only well-formed ones are looked up
  const results: (RefResult | null)[] = refs.map((r) => {
    const problem = refShapeError(r);
    return problem ? { error: problem } : null;
  });
  if (projectedModels(ctx).has(label)) {
    const wellFormed = results.flatMap((r, i) => (r === null ? [i] : []));
    const found = await resolveProjected(ctx, label, wellFormed.map((i) => refs[i]), q ?? ctx.db);
    wellFormed.forEach((at, k) => (results[at] = found[k]));
  }
  const sendAt = results.flatMap((r, i) => (r === null ? [i] : []));
  if (!sendAt.length) return results as RefResult[];
  const owner = ctx.refs.ownerOf(label);
  if (!ctx.refs.has(owner)) {
    for (const at of sendAt) results[at] = { error: typeof refs[at] === 'number' ? NOT_FOUND_ID(refs[at]) : `Related object not found: ${label} is not available.` };
    return results as RefResult[];
  }
  const res = await ctx.refs.call<{ results: RefResult[]; records?: ProjectionRecord[] }>(owner, 'POST', '/internal/resolve', { model: label, refs: sendAt.map((i) => refs[i]) });
  if (res.records?.length && projectedModels(ctx).has(label)) await applyRecords(ctx, q ?? ctx.db, label, res.records);
  sendAt.forEach((at, k) => (results[at] = res.results[k] ?? { error: `Related object not found: ${label} did not answer for it.` }));
  return results as RefResult[];
}
