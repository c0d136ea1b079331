import type { Response } from 'express';
import { escapeHtml, sendHtml } from '@inventory/core';
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
const CSRF_FIELD = 'csrfmiddlewaretoken';
/** How much of the receiver's answer a row shows (the log keeps 500 characters). */
const RESPONSE_SHOWN = 300;

const e = (v: unknown): string => escapeHtml(v === null || v === undefined ? '' : String(v));

const CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Sends the page with the headers the gateway's own pages carry: never cached, framed or scripted. */
export function sendPage(res: Response, html: string): void {
  sendHtml(res, 200, html, CSP);
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:2rem;max-width:80rem;color:#222}
header{display:flex;justify-content:space-between;align-items:center;border-bottom:1px solid #ddd;padding-bottom:.5rem;margin-bottom:1.5rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}
th,td{border-bottom:1px solid #ddd;padding:.35rem .6rem;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
form.inline{display:inline;margin:0}
pre{margin:0;white-space:pre-wrap;word-break:break-all;max-width:32rem;font-size:.85rem}
.notice{background:#e8f4ea;border:1px solid #b7dfbf;padding:.6rem 1rem;margin:1rem 0}
.warn{background:#fdecea;border:1px solid #f5c2c7;padding:.6rem 1rem;margin:1rem 0}
.muted{color:#666}
code{font-family:ui-monospace,monospace}`;

function csrfInput(ctx: PageContext): string {
  return ctx.csrfToken ? `<input type="hidden" name="${CSRF_FIELD}" value="${e(ctx.csrfToken)}">` : '';
}

function retryButton(ctx: PageContext, action: string, label: string, id: string): string {
  const disabled = ctx.canRetry ? '' : ' disabled title="Needs the change permission on webhook deliveries"';
  return `<form class="inline" method="post" action="${e(ctx.prefix + action)}">${csrfInput(ctx)}<button type="submit" id="${e(id)}"${disabled}>${e(label)}</button></form>`;
}

function queuesSection(q: QueueDepths): string {
  const rows = q.queues.map((d) => `        <tr data-queue="${e(d.queue)}"><td><code>${e(d.queue)}</code></td><td>${e(d.role)}</td>` +
    `<td class="n">${d.messages === null ? `<span class="muted">${e(d.error ?? 'unknown')}</span>` : e(d.messages)}</td>` +
    `<td class="n">${d.consumers === null ? '' : e(d.consumers)}</td></tr>`);
  return `      <h2>Queues</h2>
${q.available ? '' : `      <p class="warn">${e(q.detail)}</p>\n`}      <table id="queues">
        <thead><tr><th>Queue</th><th>Holds</th><th>Ready messages</th><th>Consumers</th></tr></thead>
        <tbody>
${rows.join('\n')}
        </tbody>
      </table>`;
}

function deliveriesSection(d: DeliveryStats): string {
  const statuses = Object.entries(d.statuses).map(([status, n]) => `<td class="n" data-status="${e(status)}">${e(n)}</td>`).join('');
  const heads = Object.keys(d.statuses).map((s) => `<th>${e(s[0].toUpperCase() + s.slice(1))}</th>`).join('');
  const rates = d.rates.map((r) => `        <tr data-window="${e(r.minutes)}"><td>last ${e(r.minutes)} min</td>` +
    `<td class="n">${e(r.succeeded_per_minute)} <span class="muted">(${e(r.succeeded)})</span></td>` +
    `<td class="n">${e(r.failed_per_minute)} <span class="muted">(${e(r.failed)})</span></td>` +
    `<td class="n">${e(r.attempts_per_minute)} <span class="muted">(${e(r.attempts)}, ${e(r.attempt_errors)} without 2XX)</span></td></tr>`);
  return `      <h2>Deliveries</h2>
      <table id="statuses"><thead><tr>${heads}</tr></thead><tbody><tr>${statuses}</tr></tbody></table>
      <h3>Rates per minute</h3>
      <table id="rates">
        <thead><tr><th>Window</th><th>Succeeded</th><th>Failed</th><th>Attempts sent</th></tr></thead>
        <tbody>
${rates.join('\n')}
        </tbody>
      </table>`;
}

function answerCell(f: FailedDelivery): string {
  const a = f.last_attempt;
  if (!a) return '<td class="muted">no attempt recorded</td><td></td>';
  const status = a.status_code !== null ? `HTTP ${e(a.status_code)}` : `<span class="muted">no answer</span>`;
  const error = a.error ? `<br>${e(a.error)}` : '';
  const took = a.duration_ms !== null ? `<br><span class="muted">${e(a.duration_ms)} ms</span>` : '';
  const body = a.response ? `<pre>${e(a.response.length > RESPONSE_SHOWN ? `${a.response.slice(0, RESPONSE_SHOWN)}…` : a.response)}</pre>` : '<span class="muted">—</span>';
  return `<td class="answer">${status}${error}${took}</td><td class="response">${body}</td>`;
}

function failuresSection(d: DeliveryStats, ctx: PageContext): string {
  const { count, results } = d.failures;
  const head = `      <h2>Recent failures</h2>
      <p>${e(count)} ${count === 1 ? 'delivery' : 'deliveries'} failed after the last attempt${count > results.length ? ` (the newest ${e(results.length)} are listed)` : ''}.
        ${count ? retryButton(ctx, `${ADMIN_PATH}retry/`, 'Retry all failed', 'retry-all') : ''}
        <a href="${e(`${ctx.prefix}/api/extras/webhook-deliveries/?status=failed`)}">In the API</a></p>`;
  if (!results.length) return head;
  const rows = results.map((f) => `        <tr data-delivery-id="${e(f.id)}">
          <td>${e(f.id)}</td><td>${e(f.webhook.name)}</td><td>${e(f.event)}</td><td><code>${e(f.object_type)}</code> ${e(f.object_id)}</td>
          <td class="n">${e(f.attempt_count)}</td><td><time datetime="${e(f.last_updated)}">${e(f.last_updated.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</time></td>
          ${answerCell(f)}
          <td>${retryButton(ctx, `${ADMIN_PATH}deliveries/${f.id}/retry/`, 'Retry', `retry-${f.id}`)}</td>
        </tr>`);
  return `${head}
      <table id="failures">
        <thead><tr><th>Delivery</th><th>Webhook</th><th>Event</th><th>Object</th><th>Attempts</th><th>Failed at</th><th>Last answer</th><th>Response</th><th></th></tr></thead>
        <tbody>
${rows.join('\n')}
        </tbody>
      </table>`;
}

/** The whole page; every value from the log, the broker or the request is escaped. */
export function renderAdminPage(view: AdminView, ctx: PageContext): string {
  const notice = ctx.retried === undefined ? ''
    : `      <p class="notice" role="status">${ctx.retried === 0 ? 'No failed delivery matched: nothing was sent again.' : `${e(ctx.retried)} ${ctx.retried === 1 ? 'delivery' : 'deliveries'} queued for another attempt.`}</p>\n`;
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Webhooks | NetBox</title>
    <style>${STYLE}</style>
  </head>
  <body>
    <header><strong>NetBox · Webhooks</strong><nav>Signed in as <strong>${e(ctx.username)}</strong> · <a href="${e(`${ctx.prefix}/api/`)}">API</a></nav></header>
    <main>
      <h1>Webhooks</h1>
${notice}      <p class="muted">As of <time datetime="${e(view.generated)}">${e(view.generated)}</time> · <a href="${e(ctx.prefix + ADMIN_PATH)}">Refresh</a> · <a href="${e(`${ctx.prefix}${ADMIN_PATH}stats/`)}">JSON</a></p>
${queuesSection(view.queues)}
${deliveriesSection(view.deliveries)}
${failuresSection(view.deliveries, ctx)}
    </main>
  </body>
</html>
`;
}
