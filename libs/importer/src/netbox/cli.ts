import { ImportFailure } from './api';
import type { ImportOptions } from './run';

export const USAGE = `usage: npm run import -- --from <NetBox URL> --token <token> [--to <our URL>] --to-token <superuser token>
  [--dry-run] [--verify] [--on-error=stop|skip] [--changelog] [--webhooks] [--tokens] [--page-size N] [--concurrency N]

  --to          our API (default http://localhost:8000, the quick start's)
  --dry-run     say per model what would be created, updated and deleted; write nothing
  --verify      only compare both sides (an import compares at its end anyway)
  --on-error    stop (default) at the first object our validation refuses, or skip it and go on (exit status 1)
  --changelog   record the import's changes in the change log (off by default)
  --webhooks    send webhooks and event rules for the import's changes (off by default)
  --tokens      copy API tokens too (with their keys)
  --page-size   objects per write (default 500)
  --concurrency pages of a model written at once, each all or none (default 2)`;

const FLAGS = new Set(['dry-run', 'verify', 'changelog', 'webhooks', 'tokens', 'no-verify']);
const VALUES = new Set(['from', 'token', 'to', 'to-token', 'on-error', 'page-size', 'concurrency']);

/** The command line's options; an unknown or incomplete one is an ImportFailure with the usage. */
export function parseArgs(argv: string[]): ImportOptions {
  const v: Record<string, string> = {};
  const f = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m) throw new ImportFailure(`unexpected argument ${argv[i]}\n${USAGE}`);
    const [, name, inline] = m;
    if (FLAGS.has(name) && inline === undefined) f.add(name);
    else if (VALUES.has(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new ImportFailure(`--${name} needs a value\n${USAGE}`);
      v[name] = value;
    } else throw new ImportFailure(`unknown option --${name}\n${USAGE}`);
  }
  if (!v.from || !v.token) throw new ImportFailure(`--from and --token are required\n${USAGE}`);
  if (!v['to-token']) throw new ImportFailure(`--to-token is required: a superuser's token of ours (the quick start prints one)\n${USAGE}`);
  const onError = v['on-error'] ?? 'stop';
  if (onError !== 'stop' && onError !== 'skip') throw new ImportFailure(`--on-error is stop or skip, not ${onError}`);
  const pageSize = Number(v['page-size'] ?? 500);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) throw new ImportFailure('--page-size is an integer from 1 to 1000');
  const concurrency = Number(v.concurrency ?? 2);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 8) throw new ImportFailure('--concurrency is an integer from 1 to 8');
  return {
    from: v.from,
    token: v.token,
    to: v.to ?? 'http://localhost:8000',
    toToken: v['to-token'],
    dryRun: f.has('dry-run'),
    verifyOnly: f.has('verify'),
    verify: !f.has('no-verify'),
    onError,
    changelog: f.has('changelog'),
    webhooks: f.has('webhooks'),
    tokens: f.has('tokens'),
    pageSize,
    concurrency,
  };
}
