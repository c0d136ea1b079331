import type { Api, Row } from './api';
import { canonical } from './bodies';
import { PLAN, modelName } from './plan';

/**
 * The proof that nothing was lost: per model, the counts and every object's
 * full REST representation in both systems, compared after dropping only
 * what must differ (decision 031):
 * - the host of every `url` and `display_url` (the path, with the id, must be equal);
 * - `created` and `last_updated`: set by the target when the import wrote the object;
 * - a user's `last_login` and `date_joined`, a token's `last_used`: the source's own sign-ins and uses.
 * A device's and a virtual machine's `config_context` is not read (it is
 * rendered from the config contexts, which are compared themselves).
 */
export const IGNORED: Record<string, string[]> = {
  '*': ['created', 'last_updated'],
  'users.users': ['last_login', 'date_joined'],
  'users.tokens': ['last_used'],
};

export interface Difference {
  model: string;
  /** null: the counts. */
  id: number | null;
  field: string;
  source: unknown;
  target: unknown;
}

const isObject = (v: unknown): v is Row => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The representation with what must differ removed; `url`s reduced to their paths. */
export function comparable(model: string, rep: Row): Row {
  const drop = new Set([...IGNORED['*'], ...(IGNORED[model] ?? [])]);
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (!isObject(v)) return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, (k === 'url' || k === 'display_url') && typeof x === 'string' ? pathOf(x) : strip(x)]));
  };
  return strip(Object.fromEntries(Object.entries(rep).filter(([k]) => !drop.has(k)))) as Row;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** Differences of every model both sides serve (`tokens`: tokens too); a model one side does not serve is not compared. */
export async function verify(from: Api, to: Api, opts: { tokens: boolean; models?: string[] }): Promise<{ differences: Difference[]; compared: Record<string, number> }> {
  const differences: Difference[] = [];
  const compared: Record<string, number> = {};
  const steps = PLAN.filter((s) => (!s.tokens || opts.tokens) && (!opts.models || opts.models.includes(modelName(s.path))));
  // models are independent here: a few at a time, both sides read together
  await inParallel(steps, 4, async (step) => {
    const model = modelName(step.path);
    const [source, target] = await Promise.all([from.all(step.path, step.read), to.all(step.path, step.read)]);
    if (!source || !target) return;
    compared[model] = source.length;
    if (source.length !== target.length) differences.push({ model, id: null, field: 'count', source: source.length, target: target.length });
    const there = new Map(target.map((r) => [Number(r.id), comparable(model, r)]));
    const here = new Set(source.map((r) => Number(r.id)));
    for (const rep of source) {
      const id = Number(rep.id);
      const other = there.get(id);
      if (!other) {
        differences.push({ model, id, field: '(object)', source: rep.display ?? id, target: null });
        continue;
      }
      const mine = comparable(model, rep);
      for (const key of new Set([...Object.keys(mine), ...Object.keys(other)])) {
        if (canonical(mine[key]) !== canonical(other[key])) differences.push({ model, id, field: key, source: mine[key], target: other[key] });
      }
    }
    for (const r of target) if (!here.has(Number(r.id))) differences.push({ model, id: Number(r.id), field: '(object)', source: null, target: r.display ?? r.id });
  });
  // in the plan's order, whatever order the models finished in
  const order = new Map(steps.map((s, i) => [modelName(s.path), i]));
  differences.sort((a, b) => order.get(a.model)! - order.get(b.model)!);
  return { differences, compared };
}

async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

/** One line per difference (the first `max`), then how many more. */
export function describe(differences: Difference[], max = 50): string[] {
  const show = (v: unknown) => {
    const text = JSON.stringify(v) ?? 'undefined';
    return text.length > 120 ? `${text.slice(0, 117)}...` : text;
  };
  const lines = differences.slice(0, max).map((d) => (d.id === null ? `${d.model}: ${d.source} objects in the source, ${d.target} here` : `${d.model} id ${d.id} ${d.field}: source ${show(d.source)}, here ${show(d.target)}`));
  if (differences.length > max) lines.push(`... and ${differences.length - max} more differences`);
  return lines;
}
