/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** The sum of the samples of `name` whose labels include `labels` (0 when there is none). */
  value(name: string, labels?: Record<string, string>): number;
  /** The families declared by `# TYPE` lines, with their type. */
  types: Map<string, string>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/y;

function number(text: string): number {
  // Prometheus reads these case-insensitively (prom-client writes `Nan`)
  if (/^\+?inf$/i.test(text)) return Infinity;
  if (/^-inf$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  const n = Number(text);
  if (Number.isNaN(n)) throw new Error(`not a sample value: ${text}`);
  return n;
}

/**
 * Parses the Prometheus text format (version 0.0.4) strictly: a line that is
 * neither a comment, blank, nor a well-formed sample throws, so a test that
 * reads metrics also proves the page is valid exposition.
 */
export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1], type[2]);
      else if (!/^# HELP \S+ /.test(line)) throw new Error(`not an exposition comment: ${line}`);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not an exposition sample: ${line}`);
    const labels: Record<string, string> = {};
    const body = m[2] ?? '';
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < body.length) {
      const start = LABEL.lastIndex;
      const l = LABEL.exec(body);
      if (!l || l.index !== start) throw new Error(`bad labels in: ${line}`);
      labels[l[1]] = l[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: m[1], labels, value: number(m[3]) });
  }
  return {
    samples,
    types,
    value(name, want = {}) {
      const hits = samples.filter((s) => s.name === name && Object.entries(want).every(([k, v]) => s.labels[k] === v));
      return hits.reduce((sum, s) => sum + s.value, 0);
    },
  };
}

/** A service's (or the gateway's) `/metrics`, parsed. */
export async function scrapeMetrics(baseUrl: string, headers: Record<string, string> = {}): Promise<Exposition> {
  const r = await fetch(`${baseUrl}/metrics`, { headers });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`GET ${baseUrl}/metrics: ${r.status} ${text.slice(0, 200)}`);
  return parseExposition(text);
}
