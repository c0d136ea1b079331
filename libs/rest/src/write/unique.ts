import { type Sql, sql, raw, ident, and, join } from '@inventory/filtering';
import { columnOf, type ModelDef, type ServiceContext, type Row, type Queryable } from '../model';

/** One unique field or rule, as the columns it compares and the message it gives. */
interface Rule {
  columns: string[];
  /** Columns that must be null for the rule to apply (a name unique among top-level objects). */
  whenNull: string[];
  /** Columns that must not be blank ('' or null) for the rule to apply. */
  unlessBlank: string[];
  caseInsensitive: boolean;
  errorField: string;
  message: string;
}

function rulesOf(model: ModelDef): Rule[] {
  const rules: Rule[] = [];
  for (const [name, field] of Object.entries(model.fields)) {
    if (!field.unique) continue;
    rules.push({
      columns: [columnOf(name, field)!],
      whenNull: [],
      unlessBlank: [],
      caseInsensitive: false,
      errorField: name,
      message: typeof field.unique === 'string' ? field.unique : `${model.verboseName} with this ${field.label ?? name} already exists.`,
    });
  }
  for (const u of model.unique) {
    const col = (f: string) => columnOf(f, model.fields[f]) ?? f;
    rules.push({
      columns: u.fields.map(col),
      whenNull: (u.whenNull ?? []).map(col),
      unlessBlank: (u.unlessBlank ?? []).map(col),
      caseInsensitive: !!u.caseInsensitive,
      errorField: u.errorField ?? '__all__',
      message: u.message,
    });
  }
  return rules;
}

/** The values a row compares under a rule, or null when the rule does not apply to it. */
function probe(rule: Rule, row: Row, field: boolean): unknown[] | null {
  const values = rule.columns.map((c) => row[c]);
  if (values.some((v) => v === undefined)) return null;
  if (field && (values[0] === null || values[0] === '')) return null; // a blank unique field is not compared
  if (rule.unlessBlank.some((c) => row[c] === undefined || row[c] === null || row[c] === '')) return null;
  if (rule.whenNull.some((c) => (row[c] ?? null) !== null)) return null;
  // NULLs are distinct (as in the database's unique index): a device without a name clashes with none
  if (values.some((v) => v === null)) return null;
  return values;
}

const keyOf = (rule: Rule, values: unknown[]): string =>
  JSON.stringify(values.map((v) => (v === null ? null : rule.caseInsensitive ? String(v).toLowerCase() : String(v))));

/**
 * The unique fields and unique-together rules each row would break, checked
 * before writing so the error names the field: against the stored rows (one
 * statement for every rule and all the rows, whatever their number) and,
 * for a bulk create, against the rows before it in the same request. One
 * error object per row ({} where none).
 */
export async function uniqueErrors(ctx: ServiceContext, model: ModelDef, rows: Row[], selfId: number | null, q: Queryable): Promise<Record<string, string[]>[]> {
  const errors: Record<string, string[]>[] = rows.map(() => ({}));
  const rules = rulesOf(model);
  const fieldRules = Object.values(model.fields).filter((f) => f.unique).length;
  const probes = rules.map((rule, r) => rows.map((row) => probe(rule, row, r < fieldRules)));
  const stored = await storedKeys(ctx, model, rules, probes, selfId, q);
  rules.forEach((rule, r) => {
    const earlier = new Set<string>();
    probes[r].forEach((values, i) => {
      if (!values) return;
      const key = keyOf(rule, values);
      if (stored[r].has(key) || earlier.has(key)) (errors[i][rule.errorField] ??= []).push(rule.message);
      earlier.add(key);
    });
  });
  return errors;
}

/** Per rule, the keys among the probed values that stored rows (other than `selfId`) already hold: one UNION ALL statement. */
async function storedKeys(ctx: ServiceContext, model: ModelDef, rules: Rule[], probes: (unknown[] | null)[][], selfId: number | null, q: Queryable): Promise<Set<string>[]> {
  const table = raw(ctx.db.table(model.table));
  const selects: Sql[] = [];
  rules.forEach((rule, r) => {
    // by which of the rule's columns are null: each group is one row-value IN list
    const groups = new Map<string, number[]>();
    probes[r].forEach((values, i) => {
      if (!values) return;
      const pattern = values.map((v) => (v === null ? 'n' : 'v')).join('');
      groups.set(pattern, [...(groups.get(pattern) ?? []), i]);
    });
    for (const [pattern, members] of groups) {
      const valued = rule.columns.filter((_, k) => pattern[k] === 'v');
      const conds: Sql[] = rule.columns.filter((_, k) => pattern[k] === 'n').map((c) => sql`${ident(c)} IS NULL`);
      for (const c of rule.whenNull) conds.push(sql`${ident(c)} IS NULL`);
      for (const c of rule.unlessBlank) conds.push(sql`${ident(c)} <> ''`);
      if (selfId !== null) conds.push(sql`id <> ${selfId}`);
      const column = (c: string) => (rule.caseInsensitive ? sql`lower(${ident(c)}::text)` : ident(c));
      const value = (v: unknown) => (rule.caseInsensitive ? sql`lower(${String(v)})` : sql`${v}`);
      const tuples = members.map((i) => sql`(${join(valued.map((c) => value(probes[r][i]![rule.columns.indexOf(c)])), ', ')})`);
      conds.push(sql`(${join(valued.map(column), ', ')}) IN (${join(tuples, ', ')})`);
      // the stored values (in their output form, as the driver reads them), compared as keyOf compares them
      const key = sql`json_build_array(${join(rule.columns.map(column), ', ')})::text`;
      selects.push(sql`(SELECT ${r}::int AS rule, ${key} AS k FROM ${table} WHERE ${and(conds)})`);
    }
  });
  const stored = rules.map(() => new Set<string>());
  if (!selects.length) return stored;
  for (const h of await q.query(join(selects, ' UNION ALL '))) {
    const rule = rules[Number(h.rule)];
    stored[Number(h.rule)].add(keyOf(rule, JSON.parse(String(h.k)) as unknown[]));
  }
  return stored;
}
