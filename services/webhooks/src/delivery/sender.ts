import * as fs from 'node:fs';
import type { WebhookContext } from '../dispatch/context';
import type { RenderLimits } from '@inventory/templates';
import { renderHeaders, renderTemplate } from '../dispatch/render';
import { SIGNATURE_HEADER, signBody, standardSignature } from '../dispatch/signature';
import { request } from './request';

/** What an attempt reads of its delivery and webhook. */
export interface DeliveryRow {
  id: number;
  event_id: string;
  status: string;
  attempt_count: number;
  /** The webhook context as the default body's text (NetBox's json.dumps of it). */
  context: string;
  payload_url: string;
  http_method: string;
  http_content_type: string;
  additional_headers: string;
  body_template: string;
  secret: string | null;
  ssl_verification: boolean;
  ca_file_path: string | null;
}

/** One attempt as the delivery log shows it. */
export interface AttemptRecord {
  time: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response: string | null;
}

export interface Outcome {
  ok: boolean;
  /** The receiver answered 410 Gone: the delivery is not tried again. */
  gone?: boolean;
  /** The receiver's Retry-After, when it gave one (seconds or an HTTP date). */
  retryAfterMs?: number;
  record: AttemptRecord;
}

const RESPONSE_EXCERPT = 500;

/**
 * Sends one attempt: URL, headers and body rendered from the stored context,
 * the body signed as sent, `X-Delivery-Id` the same on every attempt of a
 * delivery (a receiver drops a repeat by it). Never throws: a template or
 * network error is an attempt that failed, with its message. Templates
 * render on a template worker within `limits` (the TEMPLATE_* settings).
 */
export async function sendAttempt(d: DeliveryRow, attempt: number, timeoutMs: number, limits?: RenderLimits): Promise<Outcome> {
  const started = Date.now();
  const time = new Date(started).toISOString();
  try {
    // parsed only for templates: the default body is the stored text itself
    let parsed: WebhookContext | null = null;
    const context = () => (parsed ??= JSON.parse(d.context) as WebhookContext);
    const render = (template: string) => (isTemplate(template) ? renderTemplate(template, context(), limits) : template);
    const url = await render(d.payload_url);
    const id = deliveryId(d);
    const seconds = Math.floor(started / 1000);
    const headers: Record<string, string> = {
      'Content-Type': d.http_content_type || 'application/json',
      'X-Delivery-Id': id,
      'X-Delivery-Timestamp': String(seconds),
      'X-Delivery-Attempt': String(attempt),
      // Standard Webhooks: the same id on every attempt, the time of this one
      'webhook-id': id,
      'webhook-timestamp': String(seconds),
      ...(d.additional_headers?.trim() ? await renderHeaders(d.additional_headers, context(), limits) : {}),
    };
    const body = d.body_template ? await render(d.body_template) : d.context;
    if (d.secret) {
      headers[SIGNATURE_HEADER] = signBody(d.secret, body);
      headers['webhook-signature'] = standardSignature(d.secret, id, seconds, body);
    }
    const res = await request(url, {
      method: d.http_method || 'POST',
      headers,
      body: d.http_method === 'GET' ? undefined : body,
      timeoutMs,
      rejectUnauthorized: d.ssl_verification !== false,
      ca: d.ca_file_path ? await fs.promises.readFile(d.ca_file_path) : undefined,
      excerpt: RESPONSE_EXCERPT,
    });
    return {
      ok: res.statusCode >= 200 && res.statusCode < 300,
      // 410 Gone: the receiver wants no more of it (Standard Webhooks): no retry
      gone: res.statusCode === 410,
      retryAfterMs: retryAfter(res.headers['retry-after']),
      record: { time, status_code: res.statusCode, duration_ms: Date.now() - started, error: null, response: res.body },
    };
  } catch (err) {
    return { ok: false, record: { time, status_code: null, duration_ms: Date.now() - started, error: (err as Error).message, response: null } };
  }
}

/** Whether text may render as other than itself (one line with no brace renders as itself, in Jinja as here). */
const isTemplate = (text: string): boolean => text.includes('{') || text.includes('\n');

/** The delivery's id for receivers: the event and the delivery, stable across attempts and replicas. */
export const deliveryId = (d: Pick<DeliveryRow, 'event_id' | 'id'>): string => `${d.event_id}:${d.id}`;

/** Retry-After in seconds or as an HTTP date (RFC 9110 §10.2.3). */
export function retryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text) * 1000 || undefined;
  const at = Date.parse(text);
  return Number.isFinite(at) && at > now ? at - now : undefined;
}
