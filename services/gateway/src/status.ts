import type { Express } from 'express';
import type { ServiceClient } from '@inventory/refs';
import type { BrowsableApi } from './browsable';
import { ownRoute } from './methods';
import { withTimeout } from './timeout';

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

/** GET /api/status/: NetBox's keys (clients parse netbox-version), plus the state of each service. */
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
    };
  }, { pages });
}
