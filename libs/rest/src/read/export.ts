import type { Response } from 'express';
import { NotFound } from '@inventory/core';
import { type Sql, sql, raw, join } from '@inventory/filtering';
import { PyObject, templateObject as queryObject, type FieldShape } from '@inventory/templates';
import type { FieldSelection } from './field-selection';
import type { ModelDef, ServiceContext, Row } from '../model';
import { projection, projectedTextList } from '../projections';
import { countColumns, fetchByIds } from './query';
import { fieldsFor, represent, type Mode } from './serialize';
import { renderUserTemplate } from './user-templates';

/**
 * `?export=` on every list: the whole filtered, ordered list (every page,
 * `limit`/`offset` ignored, as NetBox's ExportTemplatesMixin filters the
 * queryset without paginating it):
 *
 * - `?export=<name>`: rendered by the export template of that name for the
 *   list's model (NetBox's API; none → 404), with the template's MIME type
 *   (default `text/plain; charset=utf-8`) and, when `as_attachment`,
 *   `Content-Disposition: attachment; filename="netbox_<plural>.<ext>"`.
 * - `?export=` (empty) or `?export=table`: CSV of the list's fields (NetBox's
 *   UI export of the table; its API answers 404 there), streamed.
 *
 * The objects are read a chunk at a time: the ordered ids first (one
 * statement), then each chunk's rows and representation (a fixed number of
 * statements per chunk). CSV is written as each chunk is ready; a template
 * needs every object at once (`queryset` may be read in any order, counted,
 * joined), so its context holds them all: about 0.9 KB per device in full,
 * less with `fields=` (docs/decisions/023).
 */

export const EXPORT_TEMPLATE_LABEL = 'extras.exporttemplate';

/** Objects read and represented at a time. */
const CHUNK = 500;

export interface ExportTemplate {
  name: string;
  template_code: string;
  mime_type: string;
  file_extension: string;
  as_attachment: boolean;
}

/** What `?export=<value>` asks for: the CSV of the fields, or a template (404 when none of that name applies to the model). */
export type ExportTarget = { kind: 'csv' } | { kind: 'template'; template: ExportTemplate };

/** The export templates as rows: extras' own table in extras, the projection elsewhere. */
function exportTemplateRows(ctx: ServiceContext): Sql {
  const local = ctx.models.get(EXPORT_TEMPLATE_LABEL);
  if (local) {
    return sql`SELECT id, name, content_types::text[] AS content_types, template_code, mime_type, file_extension, as_attachment FROM ${raw(ctx.db.table(local.table))}`;
  }
  return sql`SELECT id, data->>'name' AS name,
                    ${projectedTextList('content_types')} AS content_types,
                    data->>'template_code' AS template_code, data->>'mime_type' AS mime_type, data->>'file_extension' AS file_extension,
                    COALESCE((data->>'as_attachment')::boolean, TRUE) AS as_attachment
               FROM ${projection(ctx, EXPORT_TEMPLATE_LABEL)} WHERE NOT deleted`;
}

/** The export a request asks for; a template name that no template of the model has is NetBox's 404. */
export async function exportTarget(ctx: ServiceContext, model: ModelDef, name: string): Promise<ExportTarget> {
  if (name === '' || name === 'table') return { kind: 'csv' };
  const [row] = await ctx.db.query(sql`
    SELECT e.name, e.template_code, e.mime_type, e.file_extension, e.as_attachment FROM (${exportTemplateRows(ctx)}) e
     WHERE e.name = ${name} AND ${model.label} = ANY(e.content_types) ORDER BY e.id LIMIT 1`);
  if (!row) throw new NotFound();
  return {
    kind: 'template',
    template: {
      name: String(row.name),
      template_code: String(row.template_code ?? ''),
      mime_type: String(row.mime_type ?? ''),
      file_extension: String(row.file_extension ?? ''),
      as_attachment: row.as_attachment !== false,
    },
  };
}

export interface ExportQuery {
  where: Sql;
  order: Sql;
  base: string;
  mode: Mode;
  select: FieldSelection | null;
}

/** The ids of every matching object, in the list's order: one statement (count annotations only when the order sorts by them). */
async function orderedIds(ctx: ServiceContext, model: ModelDef, q: ExportQuery): Promise<number[]> {
  const text = q.order.strings.join('');
  const counts = Object.fromEntries(Object.entries(model.counts).filter(([name]) => text.includes(`"__count_${name}"`)));
  const annotations = countColumns(ctx, { ...model, counts });
  const select = annotations.length ? sql`t.id, ${join(annotations, ', ')}` : raw('t.id');
  const rows = await ctx.db.query(sql`SELECT ${select} FROM ${raw(ctx.db.table(model.table))} t WHERE ${q.where} ORDER BY ${q.order}`);
  return rows.map((r) => Number(r.id));
}

/** The representations of the matching objects, a chunk at a time, in order. */
async function* representations(ctx: ServiceContext, model: ModelDef, q: ExportQuery): AsyncGenerator<Row[]> {
  const ids = await orderedIds(ctx, model, q);
  for (let at = 0; at < ids.length; at += CHUNK) {
    const rows = await fetchByIds(ctx, model, ids.slice(at, at + CHUNK));
    // config contexts are a device's method in NetBox, not an attribute an export reads
    yield represent(ctx, model, rows, { mode: q.mode, base: q.base, select: q.select, excludeConfigContext: true });
  }
}

/** NetBox's file name: `netbox_<verbose name plural, spaces as _>` and the extension. */
export function exportFileName(model: ModelDef, extension: string): string {
  const plural = model.verboseNamePlural ?? `${model.verboseName}s`;
  return `netbox_${plural.replace(/ /g, '_')}${extension ? `.${extension}` : ''}`;
}

/** Answers `?export=` for the matching objects. */
export async function sendExport(ctx: ServiceContext, model: ModelDef, res: Response, target: ExportTarget, q: ExportQuery): Promise<void> {
  if (target.kind === 'csv') return streamCsv(ctx, model, res, q);
  const { template } = target;
  const rows: Row[] = [];
  for await (const reps of representations(ctx, model, q)) rows.push(...reps);
  const task = { kind: 'export', code: template.template_code, objects: { rows, shape: fieldShapes(model), cls: className(model.label) } } as const;
  const output = await renderUserTemplate(ctx, task, `Export template "${template.name}"`);
  res.status(200);
  res.setHeader('Content-Type', template.mime_type || 'text/plain; charset=utf-8');
  if (template.as_attachment) res.setHeader('Content-Disposition', `attachment; filename="${exportFileName(model, template.file_extension)}"`);
  res.setHeader('Content-Length', Buffer.byteLength(output));
  res.end(output);
}

/* ---- CSV ---- */

/** The columns of the CSV when no object shows them: the representation's keys in its order. */
function csvColumns(model: ModelDef, mode: Mode, select: FieldSelection | null): string[] {
  const keys = ['id', 'url', 'display', ...fieldsFor(model, mode)];
  if (mode === 'full') {
    if (model.tags) keys.push('tags');
    if (model.customFields) keys.push('custom_fields');
    if (model.timestamps) keys.push('created', 'last_updated');
    keys.push(...Object.keys(model.counts));
    if (model.tree) keys.push('_depth');
  }
  if (select?.include) return keys.filter((k) => select.include!.has(k));
  return select ? keys.filter((k) => !select.omit.has(k)) : keys;
}

/** One value as a table export shows it: a choice's label, a related object's name, lists joined, True/False. */
export function csvText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(csvText).join(',');
  if (typeof value === 'object') {
    const o = value as Row;
    if ('value' in o && 'label' in o) return String(o.label ?? '');
    if (typeof o.display === 'string') return o.display;
    return JSON.stringify(o);
  }
  return String(value);
}

/** RFC 4180: a cell with a comma, a quote or a line break is quoted, quotes doubled. */
function csvCell(value: unknown): string {
  const text = csvText(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvLine = (cells: unknown[]) => `${cells.map(csvCell).join(',')}\r\n`;

/** Writes, waiting for the client to take what was sent when its buffer is full. */
function write(res: Response, text: string): Promise<void> {
  if (res.write(text)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      res.off('drain', done);
      res.off('close', closed);
      if (err) reject(err);
      else resolve();
    };
    const closed = () => done(new Error('client went away'));
    res.once('drain', done);
    res.once('close', closed);
  });
}

/** The CSV of the list's fields, a chunk at a time (the header from the first object, else from the declaration). */
async function streamCsv(ctx: ServiceContext, model: ModelDef, res: Response, q: ExportQuery): Promise<void> {
  const chunks = representations(ctx, model, q);
  // the first chunk is read before the answer starts, so an early failure is still an error answer
  const first = await chunks.next();
  const reps = first.done ? [] : first.value;
  const columns = reps.length ? Object.keys(reps[0]) : csvColumns(model, q.mode, q.select);
  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${exportFileName(model, 'csv')}"`);
  try {
    await write(res, csvLine(columns) + reps.map((r) => csvLine(columns.map((c) => r[c]))).join(''));
    for await (const more of chunks) await write(res, more.map((r) => csvLine(columns.map((c) => r[c]))).join(''));
    res.end();
  } catch (err) {
    // the answer has started: it can only be cut short
    ctx.log.warn({ err: (err as Error).message, model: model.label }, 'CSV export stopped');
    res.destroy();
  }
}

/* ---- template context ---- */

/** The class name Python's repr shows (`<Device: r1>`). */
const className = (label: string) => (label.split('.')[1] ?? label).replace(/^./, (c) => c.toUpperCase());

/** How each field of the model reads in a template (@inventory/templates' `exportQueryset`). */
export function fieldShapes(model: ModelDef): Record<string, FieldShape> {
  const shape: Record<string, FieldShape> = {};
  for (const [key, field] of Object.entries(model.fields)) {
    if (field.type === 'choice' && !field.plain) shape[key] = { kind: 'choice' };
    else if (field.type === 'fk') shape[key] = { kind: 'related', cls: className(field.to) };
    else if (field.type === 'm2m') shape[key] = { kind: 'related-list', cls: className(field.to) };
    else if (field.type === 'generic') shape[key] = { kind: 'related', cls: 'object' };
  }
  return shape;
}

/** An object of `queryset` as NetBox's export templates read a model instance (see `exportQueryset`). */
export function templateObject(model: ModelDef, rep: Row, shared?: Map<string, PyObject>): PyObject {
  return queryObject(rep, fieldShapes(model), className(model.label), shared);
}
