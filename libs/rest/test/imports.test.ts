import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * libs/rest/src has no import circle, type-only imports included
 * (docs/decisions/026-rest-rooms.md): the graph of relative imports, read
 * with a regex over the files, is acyclic. The rooms' order is lint's
 * (eslint.config.js); this catches a circle inside a room too.
 */
const SRC = resolve(__dirname, '../src');
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.{1,2}(?:\/[^'"]*)?)['"]/g;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function target(from: string, spec: string): string {
  const base = resolve(dirname(from), spec);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return candidate;
  throw new Error(`${relative(SRC, from)} imports ${spec}, which is no file of src`);
}

function graph(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of files(SRC)) {
    const text = readFileSync(file, 'utf8');
    out.set(file, [...text.matchAll(IMPORT)].map((m) => target(file, m[1])));
  }
  return out;
}

/** Every cycle found by a depth-first walk (one per back edge), as relative paths, the first file repeated at the end. */
function cycles(edges: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next].map((f) => relative(SRC, f)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...edges.keys()].sort()) if (!state.has(node)) visit(node);
  return found;
}

describe('libs/rest imports', () => {
  it('when the relative imports of src are read (import type included), then they form no cycle', () => {
    const edges = graph();
    expect(edges.size).toBeGreaterThan(50);
    expect(cycles(edges).map((c) => c.join(' -> '))).toEqual([]);
  });

  it('when a file imports one that imports it back, then the check names the cycle', () => {
    const a = join(SRC, 'a.ts');
    const b = join(SRC, 'b.ts');
    expect(cycles(new Map([[a, [b]], [b, [a]]]))).toEqual([['a.ts', 'b.ts', 'a.ts']]);
  });
});
