import { parseArgs } from 'node:util';
import { ApiError, describeProblem, LibraryFileError } from './errors';
import { importDeviceTypes, type DeviceTypeImportSummary } from './import';

const USAGE = `usage: npm run import-device-types -- <library folder> [--to <our URL>] --to-token <token> [--on-error=stop|skip] [--batch <files>]

Imports the community device-type library's device-types/ and module-types/
(validated against its schema/) into our API, set-based and idempotently.`;

/** `import-device-types <folder> [--to URL] --to-token T [--on-error=skip] [--batch N]`; returns the exit status. */
export async function main(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s), err: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        to: { type: 'string', default: 'http://localhost:8000' },
        'to-token': { type: 'string' },
        'on-error': { type: 'string', default: 'stop' },
        batch: { type: 'string', default: '200' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    err(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = args;
  const onError = values['on-error'];
  const batch = Number(values.batch);
  if (values.help) return out(`${USAGE}\n`), 0;
  const wrong =
    positionals.length !== 1 ? 'one library folder expected'
    : !values['to-token'] ? '--to-token is required (a token of a user who may add, change and delete device types and their templates)'
    : onError !== 'stop' && onError !== 'skip' ? '--on-error is stop or skip'
    : !Number.isInteger(batch) || batch < 1 ? '--batch is a number of files (1 or more)'
    : null;
  if (wrong) return err(`${wrong}\n${USAGE}\n`), 2;
  try {
    const summary = await importDeviceTypes({
      folder: positionals[0],
      to: values.to!,
      token: values['to-token']!,
      onError: onError as 'stop' | 'skip',
      batchSize: batch,
      log: (line) => err(`${line}\n`),
    });
    out(formatSummary(summary));
    return summary.skipped.length ? 1 : 0;
  } catch (e) {
    if (e instanceof LibraryFileError) return err(`stopped: ${e.problems.length} problem(s), nothing more written (--on-error=skip goes on past a wrong file)\n${e.message}\n`), 1;
    if (e instanceof ApiError) return err(`stopped: ${e.message}\n`), 1;
    throw e;
  }
}

/** The end-of-run table: created/updated/deleted/unchanged per kind, rates, and what was skipped or not carried. */
export function formatSummary(s: DeviceTypeImportSummary): string {
  const rows = Object.entries(s.counts).map(([k, c]) => `${k.padEnd(32)}${[c.created, c.updated, c.deleted, c.unchanged].map((n) => String(n).padStart(10)).join('')}`);
  const lines = [
    `${'kind'.padEnd(32)}${['created', 'updated', 'deleted', 'unchanged'].map((h) => h.padStart(10)).join('')}`,
    ...rows,
    `${s.files} files (${s.imported} imported, ${s.skipped.length} skipped) in ${s.seconds.toFixed(2)} s: ${s.filesPerSecond.toFixed(0)} files/s; ${s.writes.objects} objects written in ${s.writes.requests} requests`,
    ...s.skipped.flatMap((k) => k.problems.map((p) => `skipped ${describeProblem(p)}`)),
    ...s.dropped.map((d) => `not carried: ${d}`),
  ];
  return `${lines.join('\n')}\n`;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (e: unknown) => {
      process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
