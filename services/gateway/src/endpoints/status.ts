import type { Express } from 'express';
import type { ServiceClient } from '@inventory/refs';
import type { BrowsableApi } from '../pages/browsable';
import { ownRoute } from './methods';
import { withTimeout } from '../forwarding/timeout';

export const NETBOX_VERSION = '3.7.8';
/** major.minor, as NetBox sends it; clients split it into exactly two parts. */
export const API_VERSION = '3.7';

/** A readiness probe must answer quickly; a service that does not is reported unavailable. */
const PROBE_TIMEOUT_MS = 2_000;

export type ServiceState = 'ok' | 'unavailable';

/** Each service's /readyz, asked concurrently. */
export async function probeServices(urls: Record<string, string>): Promise<Record<string, ServiceState>> {
  const names = Object.keys(urls).sort();
  const states = await Promise.all(
    names.map(async (name): Promise<ServiceState> => {
      try {
        const res = await fetch(`${urls[name]}/readyz`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
        await res.arrayBuffer();
        return res.ok ? 'ok' : 'unavailable';
      } catch {
        return 'unavailable';
      }
    }),
  );
  return Object.fromEntries(names.map((n, i) => [n, states[i]]));
}

/**
 * Background workers are the webhooks dispatcher's consumers. It may report
 * them at `GET /internal/workers` → `{running}`; until it does, a ready
 * dispatcher counts as one worker.
 */
async function webhookWorkers(refs: ServiceClient, state: ServiceState | undefined): Promise<number> {
  if (state !== 'ok') return 0;
  try {
    const answer = await withTimeout(refs.call<{ running?: unknown }>('webhooks', 'GET', '/internal/workers'), PROBE_TIMEOUT_MS, () => new Error('timed out'));
    return typeof answer?.running === 'number' ? answer.running : 1;
  } catch {
    return 1;
  }
}

/** A reader's state, as a service reports it (`/internal/consistency`). */
interface ReaderState {
  connected: boolean;
  backlog: number | null;
  sources: Record<string, { lag_seconds: number; applied_at: string }>;
}

/**
 * How far behind its sources each service's readers are (its projections,
 * extras' change log), by queue: whether it consumes, the events waiting,
 * and per source service the lag of the last event applied. A service that
 * does not answer is left out (its state is `unavailable` above).
 */
async function readerStates(refs: ServiceClient, services: Record<string, ServiceState>): Promise<Record<string, ReaderState>> {
  const answers = await Promise.all(
    Object.keys(services)
      .filter((s) => services[s] === 'ok' && s !== 'gateway')
      .map((s) =>
        withTimeout(refs.call<{ readers?: Record<string, ReaderState> }>(s, 'GET', '/internal/consistency'), PROBE_TIMEOUT_MS, () => new Error('timed out')).then(
          (a) => a?.readers ?? {},
          () => ({}),
        ),
      ),
  );
  const out: Record<string, ReaderState> = {};
  for (const readers of answers) Object.assign(out, readers);
  return Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]]));
}

/** GET /api/status/: NetBox's keys (clients parse netbox-version), plus the state of each service and of its readers. */
export function mountStatus(app: Express, urls: Record<string, string>, refs: ServiceClient, pages: BrowsableApi): void {
  ownRoute(app, '/api/status/', async () => {
    const services = await probeServices(urls);
    return {
      'django-version': '4.2.11',
      // the versions NetBox 3.7.8 pins for the apps clients might look for (sorted, as NetBox sorts them)
      'installed-apps': { django_filters: '24.2', drf_spectacular: '0.27.2', rest_framework: '3.14.0' },
      'netbox-version': NETBOX_VERSION,
      plugins: {},
      'python-version': '3.11.9',
      'rq-workers-running': 'webhooks' in urls ? await webhookWorkers(refs, services.webhooks) : 0,
      services,
      // each projection's (and the change log's) lag: writes wait for these readers (X-Consistency-Pending names the laggards)
      consistency: await readerStates(refs, services),
    };
  }, { pages });
}
