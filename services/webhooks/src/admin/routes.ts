import type { Express, Request, Response } from 'express';
import { MethodNotAllowed, NotAuthenticated, NotFound, PermissionDenied } from '@inventory/core';
import { PAGE_CSRF_HEADER, isStaff, type Identity } from '@inventory/auth';
import { sql, and, type Sql } from '@inventory/filtering';
import { identityOf, requirePermission, type ServiceContext } from '@inventory/rest';
import type { Dispatcher } from '../delivery/dispatcher';
import { retryDeliveries } from '../delivery/retry-routes';
import { webhookDelivery } from '../models/delivery';
import { ADMIN_PATH, renderAdminPage, sendPage, type AdminView } from './page';
import { queueDepths, webhookQueues } from './queues';
import { deliveryStats } from './stats';

export interface AdminOptions {
  /** The broker whose queue depths the page shows (none: shown as unavailable). */
  amqpUrl: string | undefined;
  /** The retry schedule (ms): one retry queue per step. */
  scheduleMs: number[];
  /** The running dispatcher, which the retry buttons go through (null: no broker, 503). */
  dispatcher: () => Dispatcher | null;
}

const RETRY_ALL = `${ADMIN_PATH}retry/`;
const RETRY_ONE = `${ADMIN_PATH}deliveries/:id/retry/`;
const STATS = `${ADMIN_PATH}stats/`;

/**
 * The webhooks admin page, which the gateway serves at /admin/webhooks/ to
 * staff (session or token): `GET` the page, `GET stats/` the same figures as
 * JSON, `POST retry/` every failed delivery and `POST deliveries/{id}/retry/`
 * one, both through the dispatcher as the REST retry endpoints are (and with
 * their rule: the change permission on deliveries). The gateway checks staff
 * and CSRF; this checks staff again, as every service checks what it serves.
 */
export function mountAdminRoutes(app: Express, ctx: ServiceContext, o: AdminOptions): void {
  const queues = webhookQueues(o.scheduleMs);
  const prefix = pathPrefix(ctx.settings.publicUrl);

  const view = async (): Promise<AdminView> => {
    const [q, deliveries] = await Promise.all([queueDepths(o.amqpUrl, queues), deliveryStats(ctx)]);
    return { queues: q, deliveries, generated: new Date().toISOString() };
  };

  app.get(ADMIN_PATH, async (req, res) => {
    const identity = staff(res);
    const csrf = req.headers[PAGE_CSRF_HEADER];
    sendPage(res, renderAdminPage(await view(), {
      prefix,
      csrfToken: typeof csrf === 'string' && csrf ? csrf : undefined,
      username: identity.user?.username ?? '',
      canRetry: mayRetry(ctx, identity),
      retried: retriedNotice(req.query.retried),
    }));
  });

  app.get(STATS, async (_req, res) => {
    staff(res);
    res.json(await view());
  });

  const retry = async (req: Request, res: Response, where: Sql[]): Promise<void> => {
    const scope = requirePermission(ctx, webhookDelivery, staff(res), 'change');
    const retried = await retryDeliveries(ctx, o.dispatcher(), and([scope, sql`t.status = 'failed'`, ...where]));
    // a form goes back to the page (303: GET it), which says what happened; a script gets the count
    if (wantsHtml(req)) res.redirect(303, `${prefix}${ADMIN_PATH}?retried=${retried}`);
    else res.json({ retried });
  };
  app.post(RETRY_ALL, (req, res) => retry(req, res, []));
  app.post(RETRY_ONE, (req, res) => {
    const id = /^\d{1,15}$/.test(req.params.id) ? Number(req.params.id) : NaN;
    if (!Number.isSafeInteger(id)) throw new NotFound();
    return retry(req, res, [sql`t.id = ${id}`]);
  });

  const only = (methods: string) => (req: Request, res: Response) => {
    res.setHeader('Allow', methods);
    throw new MethodNotAllowed(req.method);
  };
  app.all([ADMIN_PATH, STATS], only('GET, HEAD'));
  app.all([RETRY_ALL, RETRY_ONE], only('POST'));
}

/** The caller, when staff (or superuser) and active; 403 otherwise. */
function staff(res: Response): Identity {
  const identity = identityOf(res);
  if (!identity.user) throw new NotAuthenticated();
  if (!isStaff(identity)) throw new PermissionDenied();
  return identity;
}

function mayRetry(ctx: ServiceContext, identity: Identity): boolean {
  try {
    requirePermission(ctx, webhookDelivery, identity, 'change');
    return true;
  } catch {
    return false;
  }
}

/** `?retried=N` after a retry: a count, or nothing (anything else is ignored). */
function retriedNotice(value: unknown): number | undefined {
  return typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : undefined;
}

function wantsHtml(req: Request): boolean {
  const accept = req.headers.accept ?? '';
  return /\btext\/html\b/i.test(accept) && !/\bapplication\/json\b/i.test(accept);
}

/** Path prefix of PUBLIC_URL (`https://host/netbox` → `/netbox`), so links and redirects work behind one. */
function pathPrefix(publicUrl: string | undefined): string {
  if (!publicUrl) return '';
  try {
    return new URL(publicUrl).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}
