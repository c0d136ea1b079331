import { Api, IMPORT_HEADER, ImportFailure, type Row } from './api';
import { writableFields } from './bodies';
import { NOT_COPIED } from './plan';
import { Progress, summary, type ModelReport, type Out } from './report';
import { syncAll } from './sync';
import { describe, verify, type Difference } from './verify';

export interface ImportOptions {
  from: string;
  token: string;
  to: string;
  toToken: string;
  dryRun?: boolean;
  /** Only compare (no writes). */
  verifyOnly?: boolean;
  /** Compare after the import (default: yes, unless a dry run). */
  verify?: boolean;
  onError?: 'stop' | 'skip';
  changelog?: boolean;
  webhooks?: boolean;
  tokens?: boolean;
  pageSize?: number;
  /** Pages of a model written at once (default 2). */
  concurrency?: number;
  out?: Out;
  tty?: boolean;
  afterPage?: (model: string, page: number) => void | Promise<void>;
}

export interface ImportResult {
  reports: ModelReport[];
  differences: Difference[];
  /** 0: copied (or compared) and equal; 1: objects refused, differences found, or a failure. */
  exitCode: number;
}

/**
 * `npm run import`: checks that the source is NetBox 3.x and that both
 * tokens answer, copies every model (sync.ts), then verifies (verify.ts).
 */
export async function runImport(opts: ImportOptions): Promise<ImportResult> {
  const out = opts.out ?? ((line: string) => console.log(line));
  const from = new Api(opts.from, opts.token, 'the source');
  const words = ['1', ...(opts.changelog ? ['changelog'] : []), ...(opts.webhooks ? ['webhooks'] : [])];
  const to = new Api(opts.to, opts.toToken, 'the target', { [IMPORT_HEADER]: words.join(',') });
  // the same writes answered without waiting for the target's readers (all of a model's pages but the last wave)
  const toNoWait = new Api(opts.to, opts.toToken, 'the target', { [IMPORT_HEADER]: [...words, 'nowait'].join(',') });
  const version = await checkSource(from);
  out(`source: NetBox ${version} at ${from.base}; target: ${to.base}${opts.dryRun ? ' (dry run: nothing is written)' : ''}`);
  const writable = writableFields(await to.get('/api/schema/?format=json'));
  let reports: ModelReport[] = [];
  if (!opts.verifyOnly) {
    reports = await syncAll({
      from,
      to,
      toNoWait,
      writable,
      dryRun: !!opts.dryRun,
      onError: opts.onError ?? 'stop',
      tokens: !!opts.tokens,
      pageSize: opts.pageSize ?? 500,
      concurrency: opts.concurrency ?? 2,
      progress: new Progress(out, opts.tty ?? false, !!opts.dryRun),
      afterPage: opts.afterPage,
    });
    for (const line of summary(reports, !!opts.dryRun)) out(line);
    for (const [path, why] of Object.entries(NOT_COPIED)) out(`not copied: ${path} (${why})`);
  }
  let differences: Difference[] = [];
  if (opts.verifyOnly || (opts.verify !== false && !opts.dryRun)) {
    const result = await verify(from, to, { tokens: !!opts.tokens });
    differences = result.differences;
    const objects = Object.values(result.compared).reduce((a, b) => a + b, 0);
    out(`verify: ${Object.keys(result.compared).length} models, ${objects} objects compared: ${differences.length ? `${differences.length} differences` : 'equal'}`);
    for (const line of describe(differences)) out(line);
  }
  const refused = reports.some((r) => r.skipped.length);
  return { reports, differences, exitCode: refused || differences.length ? 1 : 0 };
}

/** The source's version from `/api/status/`; anything but NetBox 3.x is refused, and so is a token that cannot read. */
async function checkSource(from: Api): Promise<string> {
  const status: Row = await from.get('/api/status/');
  const version = String(status['netbox-version'] ?? '');
  if (!/^3\.\d+/.test(version)) {
    throw new ImportFailure(`the source at ${from.base} is not NetBox 3.x (its /api/status/ says netbox-version ${JSON.stringify(status['netbox-version'] ?? null)}); this import reads NetBox 3.x's API`);
  }
  // /api/status/ answers without a token: a list read shows whether this one can read
  await from.get('/api/dcim/sites/?limit=1');
  return version;
}
