/** What an import did per model, and how it is shown: a line per model as it goes, a table at the end. */

export interface Skipped {
  model: string;
  id: number;
  /** The field messages our validation gave (or the refusal's detail). */
  errors: unknown;
}

export interface ModelReport {
  model: string;
  /** Objects in the source. */
  source: number;
  created: number;
  updated: number;
  deleted: number;
  skipped: Skipped[];
  /** Time spent on the model (both passes and its deletions), ms. */
  ms: number;
  /** Why the model was not copied (not served by one side). */
  note?: string;
}

export function emptyReport(model: string): ModelReport {
  return { model, source: 0, created: 0, updated: 0, deleted: 0, skipped: [], ms: 0 };
}

export type Out = (line: string) => void;

const rate = (r: ModelReport) => (r.ms > 0 ? Math.round((r.source * 1000) / r.ms) : 0);

/**
 * Progress per model: on a terminal one line rewritten as pages go; to a
 * file or a pipe (not a TTY) one plain line per model when it is done.
 */
export class Progress {
  constructor(
    private readonly out: Out,
    private readonly tty: boolean,
    private readonly dryRun: boolean,
  ) {}

  /** `created`, or `to create` in a dry run. */
  private verb(done: string): string {
    return this.dryRun ? `to ${done.slice(0, -1)}` : done;
  }

  page(r: ModelReport, done: number, total: number): void {
    if (!this.tty) return;
    const width = 20;
    const filled = total ? Math.round((done / total) * width) : width;
    process.stdout.write(`\r${r.model.padEnd(36)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
  }

  /** The model's first pass is done (deletions, last of all, get a line of their own). */
  done(r: ModelReport): void {
    if (r.note) return this.line(r, `not copied: ${r.note}`);
    const skipped = r.skipped.length ? `, ${r.skipped.length} refused` : '';
    this.line(r, `${r.source} in source: ${r.created} ${this.verb('created')}, ${r.updated} ${this.verb('updated')}${skipped} (${(r.ms / 1000).toFixed(1)} s, ${rate(r)} objects/s)`);
  }

  line(r: ModelReport, text: string): void {
    if (this.tty) process.stdout.write('\r\x1b[K');
    this.out(`${r.model.padEnd(36)} ${text}`);
  }
}

/** The table at the end: a row per model that has objects or was left out, totals, then every refused object. */
export function summary(reports: ModelReport[], dryRun: boolean): string[] {
  const lines: string[] = [];
  const head = dryRun ? ['model', 'source', 'to create', 'to update', 'to delete', 'refused', 'objects/s'] : ['model', 'source', 'created', 'updated', 'deleted', 'refused', 'objects/s'];
  const rows = reports.filter((r) => r.source || r.created || r.updated || r.deleted || r.skipped.length || r.note);
  const cells = rows.map((r) => (r.note ? [r.model, '-', '-', '-', '-', '-', r.note] : [r.model, r.source, r.created, r.updated, r.deleted, r.skipped.length, rate(r)].map(String)));
  const total = reports.reduce((t, r) => ({ source: t.source + r.source, created: t.created + r.created, updated: t.updated + r.updated, deleted: t.deleted + r.deleted, skipped: t.skipped + r.skipped.length, ms: t.ms + r.ms }), { source: 0, created: 0, updated: 0, deleted: 0, skipped: 0, ms: 0 });
  cells.push(['total', total.source, total.created, total.updated, total.deleted, total.skipped, total.ms ? Math.round((total.source * 1000) / total.ms) : 0].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (i === 6 && c[1] === '-' ? 0 : c[i].length))));
  const line = (c: string[]) => c.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(i === 6 && c[1] === '-' ? 0 : widths[i]))).join('  ');
  lines.push(line(head), ...cells.map(line));
  for (const r of reports) for (const s of r.skipped) lines.push(`refused: ${s.model} id ${s.id}: ${JSON.stringify(s.errors)}`);
  return lines;
}
