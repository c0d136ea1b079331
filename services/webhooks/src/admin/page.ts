import path from 'node:path';
import type { Response } from 'express';
import { escapeHtml, sendHtml } from '@inventory/core';
import { htmlTemplates } from '@inventory/templates';
import type { QueueDepths } from './queues';
import type { DeliveryStats, FailedDelivery } from './stats';

/** Everything the page shows. */
export interface AdminView {
  queues: QueueDepths;
  deliveries: DeliveryStats;
  /** When the figures were read (ISO, UTC). */
  generated: string;
}

/** What the page needs besides the figures. */
export interface PageContext {
  /** Path prefix of the public URL (`/netbox` behind one), '' otherwise. */
  prefix: string;
  /** The session's CSRF token for the forms (absent for a token caller, who needs none). */
  csrfToken?: string;
  username: string;
  /** Whether the caller may retry (the change permission on deliveries); the buttons are disabled otherwise. */
  canRetry: boolean;
  /** The outcome of the retry that redirected here. */
  retried?: number;
}

export const ADMIN_PATH = '/admin/webhooks/';
/** How much of the receiver's answer a row shows (the log keeps 500 characters). */
const RESPONSE_SHOWN = 300;

/**
 * The page is templates/admin.liquid (services/webhooks/templates, beside
 * src/ and dist/ alike); this gathers its data. Every `{{ }}` is HTML-escaped.
 */
const render = htmlTemplates(path.join(__dirname, '..', '..', 'templates'), {
  escape: escapeHtml,
  globals: { csrfField: 'csrfmiddlewaretoken' },
});

const CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Sends the page with the headers the gateway's own pages carry: never cached, framed or scripted. */
export function sendPage(res: Response, html: string): void {
  sendHtml(res, 200, html, CSP);
}

/** A failed delivery's row: its last answer (the receiver's text cut short) and where its retry button posts. */
function failureRow(f: FailedDelivery, prefix: string) {
  const a = f.last_attempt;
  const response = a?.response && a.response.length > RESPONSE_SHOWN ? `${a.response.slice(0, RESPONSE_SHOWN)}…` : a?.response;
  return {
    ...f,
    webhookName: f.webhook.name,
    failedAt: f.last_updated.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'),
    answer: a && { ...a, response },
    retryHref: `${prefix}${ADMIN_PATH}deliveries/${f.id}/retry/`,
    buttonId: `retry-${f.id}`,
  };
}

/** The whole page; every value from the log, the broker or the request is escaped. */
export function renderAdminPage(view: AdminView, ctx: PageContext): string {
  const { prefix } = ctx;
  const d = view.deliveries;
  return render('admin', {
    username: ctx.username,
    links: { api: `${prefix}/api/`, page: prefix + ADMIN_PATH, stats: `${prefix}${ADMIN_PATH}stats/` },
    retried: ctx.retried,
    generated: view.generated,
    queues: view.queues,
    statuses: Object.entries(d.statuses).map(([status, count]) => ({ status, count, label: status[0].toUpperCase() + status.slice(1) })),
    rates: d.rates,
    failures: {
      count: d.failures.count,
      rows: d.failures.results.map((f) => failureRow(f, prefix)),
      retryAllHref: `${prefix}${ADMIN_PATH}retry/`,
      apiHref: `${prefix}/api/extras/webhook-deliveries/?status=failed`,
    },
    retry: { csrfToken: ctx.csrfToken, allowed: ctx.canRetry },
  });
}
