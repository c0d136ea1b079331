import { ValidationError } from '@inventory/core';
import { contentType } from '@inventory/refs';
import { contentTypesIdFilter, defineModel, f, type ModelDef, type Row } from '@inventory/rest';
import { validateConditions } from '../dispatch/conditions';
import { validateTemplate } from '../dispatch/render';
import { deleteRulesOf } from './event-rule';

export const HTTP_METHODS = [
  ['GET', 'GET'],
  ['POST', 'POST'],
  ['PUT', 'PUT'],
  ['PATCH', 'PATCH'],
  ['DELETE', 'DELETE'],
] as const;

/** The seed's limit ("at least one of create, update, delete"), in NetBox's words for its three event types. */
export const NO_EVENT_TYPE = 'At least one event type must be selected: create, update, and/or delete.';
/** NetBox 3.7 (spec §C.4). */
export const CA_FILE_WITHOUT_SSL = 'Do not specify a CA certificate file if SSL verification is disabled.';

const TEMPLATES = ['payload_url', 'additional_headers', 'body_template'] as const;

/** Object types a webhook may watch: those whose changes are events. */
const supportsEvents = (label: string) => !!contentType(label)?.features.events;

/**
 * The seed's webhook record (spec README: one record, NetBox 3.6's wire
 * names) with NetBox 3.7's description, tags and custom fields. Created
 * without its triggers (no `content_types` and no event type: NetBox 3.7's
 * shape) it fires only through the event rules that name it
 * (docs/decisions/027-event-rules.md). `secret`
 * is write-only: never in a response, a change record or an event (NetBox
 * returns it in clear text; here only the dispatcher reads it, from its
 * table).
 */
export const webhook: ModelDef = defineModel({
  label: 'extras.webhook',
  endpoint: 'webhooks',
  table: 'webhook',
  verboseName: 'webhook',
  fields: {
    // required with an event type (the seed's shape); left out with none, a 3.7-shaped webhook has no triggers of its own
    content_types: f.contentTypes({ required: true, default: [], allowed: supportsEvents }),
    name: f.name(150, { unique: true }),
    description: f.description(),
    type_create: f.boolean(false),
    type_update: f.boolean(false),
    type_delete: f.boolean(false),
    payload_url: f.string(500, { required: true, label: 'URL' }),
    enabled: f.boolean(true),
    http_method: f.choice(HTTP_METHODS, { default: 'POST', plain: true, label: 'HTTP method' }),
    http_content_type: f.string(100, { default: 'application/json', label: 'HTTP content type' }),
    additional_headers: f.text(),
    body_template: f.text(),
    secret: f.password({ maxLength: 255 }),
    conditions: f.json({ nullable: true }),
    ssl_verification: f.boolean(true, { label: 'SSL verification' }),
    ca_file_path: f.string(4096, { nullable: true, label: 'CA file path' }),
  },
  brief: ['name'],
  display: (r) => String(r.name),
  ordering: ['name'],
  search: ['name', 'description', 'payload_url'],
  filters: () => [contentTypesIdFilter()],
  hooks: { validate: validateWebhook, beforeDelete: deleteRulesOf },
});

/** What is accepted on save is exactly what the dispatcher can evaluate and render. */
function validateWebhook(row: Row, _existing: Row | null, _wctx: unknown, body: Row): void {
  const errs: Record<string, string[]> = {};
  const anyType = !!(row.type_create || row.type_update || row.type_delete);
  const given = !!body && typeof body === 'object' && 'content_types' in body;
  const watched = Array.isArray(row.content_types) && row.content_types.length > 0;
  // the seed's shape (object types given) needs an event type, and an event type needs object types
  if ((given || watched) && !anyType) errs.__all__ = [NO_EVENT_TYPE];
  if (anyType && !given && !watched) errs.content_types = ['This field is required.'];
  if (row.conditions !== null && row.conditions !== undefined) {
    const problem = validateConditions(row.conditions);
    if (problem) errs.conditions = [problem];
  }
  for (const name of TEMPLATES) {
    const text = row[name];
    if (typeof text !== 'string' || !text) continue;
    const problem = validateTemplate(text);
    if (problem) errs[name] = [problem];
  }
  if (row.ssl_verification === false && row.ca_file_path) errs.ca_file_path = [CA_FILE_WITHOUT_SSL];
  if (Object.keys(errs).length) throw new ValidationError(errs);
}
