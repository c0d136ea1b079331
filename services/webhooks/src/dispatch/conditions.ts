/**
 * NetBox's condition language (utilities/conditions.py; spec §C.11): an event
 * rule's `conditions` decide whether it fires for an object's `data`.
 *
 *   {"and": [{"attr": "status.value", "value": "active"},
 *            {"or": [{"attr": "tags.slug", "op": "contains", "value": "core"}, ...]}]}
 *
 * Where NetBox crashes (malformed shapes at save time, type mismatches at
 * evaluation time: quirk Q9) this module rejects the shape with a message and
 * evaluates the mismatched condition as false.
 */
import { numeric, pyEquals, pyStr, pyTypeName } from '@inventory/templates';

export const OPERATORS = ['eq', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'regex'] as const;
export type Operator = (typeof OPERATORS)[number];

/** Operators each type of reference value accepts (NetBox's `Condition.TYPES`). */
const ALLOWED: Record<string, readonly Operator[]> = {
  str: ['eq', 'contains', 'regex'],
  bool: ['eq', 'contains'],
  int: ['eq', 'gt', 'gte', 'lt', 'lte', 'contains'],
  float: ['eq', 'gt', 'gte', 'lt', 'lte', 'contains'],
  list: ['eq', 'in', 'contains'],
  NoneType: ['eq'],
};

const CONDITION_KEYS = ['attr', 'value', 'op', 'negate'];

/** A stored condition set that does not compile (only reachable when it skipped `validateConditions`). */
export class InvalidConditionsError extends Error {
  override name = 'InvalidConditionsError';
}

interface ConditionNode {
  kind: 'condition';
  path: string[];
  op: Operator;
  value: unknown;
  negate: boolean;
}

interface SetNode {
  kind: 'set';
  logic: 'and' | 'or';
  items: Node[];
}

type Node = ConditionNode | SetNode;

/** Mismatched types (NetBox raises a TypeError): the condition is false. */
class Mismatch extends Error {}

/**
 * The message NetBox answers under `conditions` for an invalid expression,
 * or null when it is valid. An empty value (null, `{}`, `[]`, …) is valid:
 * "no conditions".
 */
export function validateConditions(value: unknown): string | null {
  if (!pyTruthy(value)) return null;
  try {
    compileSet(value);
    return null;
  } catch (e) {
    if (e instanceof InvalidConditionsError) return e.message;
    throw e;
  }
}

/** Whether `data` (the object's REST representation) satisfies `conditions`; empty conditions always do. */
export function evaluate(conditions: unknown, data: unknown): boolean {
  if (!pyTruthy(conditions)) return true;
  return evalNode(compileSet(conditions), data);
}

function compileSet(ruleset: unknown): SetNode {
  if (!isDict(ruleset)) invalid(`Ruleset must be a dictionary, not ${pyTypeName(ruleset)}.`);
  const keys = Object.keys(ruleset);
  if (keys.length !== 1) invalid(`Ruleset must have exactly one logical operator (found ${keys.length})`);
  const logic = keys[0];
  // NetBox lower-cases the key for this check, then fails on `AND`/`OR` with a server error: reject them here.
  if (logic !== 'and' && logic !== 'or') invalid(`Invalid logic type: ${logic} (must be 'and' or 'or')`);
  const rules = ruleset[logic];
  if (!Array.isArray(rules)) invalid(`Ruleset '${logic}' must be a list of conditions, not ${pyTypeName(rules)}.`);
  return { kind: 'set', logic, items: rules.map((rule) => (isRuleset(rule) ? compileSet(rule) : compileCondition(rule))) };
}

/** NetBox's `is_ruleset`, widened to upper-case keys so that they get their message rather than "unexpected key". */
function isRuleset(rule: unknown): boolean {
  if (!isDict(rule)) return false;
  const keys = Object.keys(rule);
  return keys.length === 1 && ['and', 'or'].includes(keys[0].toLowerCase());
}

function compileCondition(rule: unknown): ConditionNode {
  if (!isDict(rule)) invalid(`Condition must be a dictionary, not ${pyTypeName(rule)}.`);
  const extra = Object.keys(rule).filter((k) => !CONDITION_KEYS.includes(k));
  if (extra.length) invalid(`Unexpected key in condition: ${extra.join(', ')} (allowed: ${CONDITION_KEYS.join(', ')})`);
  for (const required of ['attr', 'value']) {
    if (!Object.hasOwn(rule, required)) invalid(`Condition is missing the required key: ${required}`);
  }
  const { attr, value } = rule;
  const op = Object.hasOwn(rule, 'op') ? rule.op : 'eq';
  if (typeof attr !== 'string' || attr === '') invalid(`Condition attr must be a non-empty string, not ${pyTypeName(attr)}`);
  if (typeof op !== 'string' || !(OPERATORS as readonly string[]).includes(op)) {
    invalid(`Unknown operator: ${pyStr(op)}. Must be one of: ${OPERATORS.join(', ')}`);
  }
  const type = pyTypeName(value);
  const allowed = ALLOWED[type.slice("<class '".length, -2)];
  if (!allowed) invalid(`Unsupported value type: ${type}`);
  if (!allowed.includes(op as Operator)) invalid(`Invalid type for ${op} operation: ${type}`);
  return { kind: 'condition', path: attr.split('.'), op: op as Operator, value, negate: pyTruthy(rule.negate) };
}

function evalNode(node: Node, data: unknown): boolean {
  if (node.kind === 'set') {
    return node.logic === 'and' ? node.items.every((n) => evalNode(n, data)) : node.items.some((n) => evalNode(n, data));
  }
  try {
    return OPS[node.op](lookup(node.path, data), node.value) !== node.negate;
  } catch (e) {
    if (e instanceof Mismatch) return false;
    throw e;
  }
}

/**
 * NetBox's dotted lookup: a key of an object (missing → null); over a list,
 * the key of each element (`tags.slug` → the slugs); anything else on the
 * way makes the whole value null.
 */
export function lookup(path: string[], data: unknown): unknown {
  const get = (obj: unknown, key: string): unknown => {
    if (!isDict(obj)) throw new Mismatch();
    return Object.hasOwn(obj, key) ? obj[key] : null;
  };
  try {
    return path.reduce<unknown>((obj, key) => (Array.isArray(obj) ? obj.map((item) => get(item, key)) : get(obj, key)), data);
  } catch (e) {
    if (e instanceof Mismatch) return null;
    throw e;
  }
}

/** D = the object's value, V = the condition's value; each is Python's operator over JSON values. */
const OPS: Record<Operator, (d: unknown, v: unknown) => boolean> = {
  eq: (d, v) => pyEquals(d, v),
  gt: (d, v) => compare(d, v) > 0,
  gte: (d, v) => compare(d, v) >= 0,
  lt: (d, v) => compare(d, v) < 0,
  lte: (d, v) => compare(d, v) <= 0,
  in: (d, v) => (v as unknown[]).some((item) => pyEquals(d, item)),
  contains: (d, v) => {
    if (typeof d === 'string') {
      if (typeof v !== 'string') throw new Mismatch();
      return d.includes(v);
    }
    if (Array.isArray(d)) return d.some((item) => pyEquals(item, v));
    if (isDict(d)) {
      if (Array.isArray(v)) throw new Mismatch(); // unhashable
      return typeof v === 'string' && Object.hasOwn(d, v);
    }
    throw new Mismatch();
  },
  regex: (d, v) => {
    if (typeof d !== 'string') throw new Mismatch();
    const re = pythonRegex(v as string);
    re.lastIndex = 0;
    return re.test(d);
  },
};

function compare(d: unknown, v: unknown): number {
  const a = numeric(d);
  const b = numeric(v);
  if (a === undefined || b === undefined) throw new Mismatch();
  return a - b;
}

const regexCache = new Map<string, RegExp>();

/** Python's `re.match(pattern, s)`: anchored at the start only (a sticky JS regex); `(?P<n>…)`/`(?P=n)` translated. */
function pythonRegex(pattern: string): RegExp {
  let re = regexCache.get(pattern);
  if (!re) {
    const js = pattern.replace(/\(\?P<(\w+)>/g, '(?<$1>').replace(/\(\?P=(\w+)\)/g, '\\k<$1>');
    try {
      re = new RegExp(js, 'y');
    } catch {
      throw new Mismatch(); // NetBox's re.error at evaluation time
    }
    if (regexCache.size > 500) regexCache.clear();
    regexCache.set(pattern, re);
  }
  return re;
}

function isDict(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Python's truthiness of a JSON value. */
function pyTruthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (isDict(v)) return Object.keys(v).length > 0;
  return Boolean(v);
}

function invalid(message: string): never {
  throw new InvalidConditionsError(message);
}
