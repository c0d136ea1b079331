import type { Express, Request, Response } from 'express';
import { NotFound, PermissionDenied, ValidationError, sendJson } from '@inventory/core';
import { sql, raw, type Sql } from '@inventory/filtering';
import {
  baseUrl,
  identityOf,
  mountRoute,
  nestedFor,
  pageLinks,
  parseId,
  parsePage,
  requestUrl,
  requirePermission,
  type Row,
  type ServiceContext,
} from '@inventory/rest';
import { DEVICE_FACE } from '../models/choices';
import { device } from '../models/device';
import { rack } from '../models/rack';
import { renderElevationSvg } from './elevation-svg';

/** One rack unit of an elevation, as NetBox's RackUnitSerializer shows it. */
export interface RackUnit {
  id: number;
  name: string;
  face: { value: string; label: string };
  device: Row | null;
  occupied: boolean;
  display: string;
}

/** A mounted device as the elevation draws it. */
export interface Mounted {
  id: number;
  name: string | null;
  position: number;
  height: number;
  face: string;
  fullDepth: boolean;
  color: string;
  display: string;
  url: string;
  visible: boolean;
}

const FACES: Record<string, string> = Object.fromEntries(DEVICE_FACE);
const toTenths = (v: number) => Math.round(v * 10);
/** `U42` for a whole unit, `U42.5` for a half. */
const unitName = (tenths: number) => (tenths % 10 ? `U${(tenths / 10).toFixed(1)}` : `U${tenths / 10}`);

function integerParam(params: URLSearchParams, name: string, fallback: number): number {
  const v = params.get(name);
  if (v === null || v === '') return fallback;
  if (!/^-?\d+$/.test(v)) throw new ValidationError({ [name]: ['A valid integer is required.'] });
  return Number(v);
}

function booleanParam(params: URLSearchParams, name: string, fallback: boolean): boolean {
  const v = params.get(name);
  if (v === null || v === '') return fallback;
  if (/^(true|1|yes|on)$/i.test(v)) return true;
  if (/^(false|0|no|off)$/i.test(v)) return false;
  throw new ValidationError({ [name]: ['Must be a valid boolean.'] });
}

/** The rack and the devices mounted on it, with the unit span each covers. */
async function mountedDevices(ctx: ServiceContext, rackId: number, face: string, exclude: number | null, deviceScope: Sql | null, base: string): Promise<Mounted[]> {
  const t = (name: string) => raw(ctx.db.table(name));
  const rows = await ctx.db.query(sql`
    SELECT d.id, d.name, d.position, d.face, dt.u_height, dt.is_full_depth, r.color,
           ${deviceScope ? sql`(d.id IN (SELECT t.id FROM ${t('device')} t WHERE ${deviceScope}))` : raw('FALSE')} AS visible
      FROM ${t('device')} d JOIN ${t('device_type')} dt ON dt.id = d.device_type_id JOIN ${t('device_role')} r ON r.id = d.role_id
     WHERE d.rack_id = ${rackId} AND d.position > 0 AND dt.u_height > 0 AND (d.face = ${face} OR dt.is_full_depth)
       AND d.id <> ${exclude ?? 0}
     ORDER BY d.position`);
  const nested = await nestedFor(ctx, device.label, rows.map((r) => Number(r.id)), base);
  return rows.map((r) => {
    const n = nested.get(Number(r.id));
    return {
      id: Number(r.id),
      name: r.name as string | null,
      position: Number(r.position),
      height: Number(r.u_height),
      face: String(r.face),
      fullDepth: !!r.is_full_depth,
      color: String(r.color || '9e9e9e'),
      display: String(n?.display ?? r.name ?? r.id),
      url: String(n?.url ?? ''),
      visible: !!r.visible,
    };
  });
}

/** NetBox's Rack.get_rack_units(): every half unit, top to bottom (bottom to top for descending units). */
export function rackUnits(r: Row, face: string, devices: Mounted[], nested: Map<number, Row>, expand: boolean): RackUnit[] {
  const start = toTenths(Number(r.starting_unit));
  const end = start + toTenths(Number(r.u_height));
  const order: number[] = [];
  for (let u = start; u < end; u += 5) order.push(u);
  if (!r.desc_units) order.reverse();
  const units = new Map<number, RackUnit>(
    order.map((u) => [u, { id: u / 10, name: unitName(u), face: { value: face, label: FACES[face] }, device: null, occupied: false, display: unitName(u) }]),
  );
  for (const d of devices) {
    const from = toTenths(d.position);
    const covered = expand ? Array.from({ length: toTenths(d.height) / 5 }, (_, i) => from + i * 5) : [from];
    for (const u of covered) {
      const unit = units.get(u);
      if (!unit) continue;
      unit.device = d.visible ? (nested.get(d.id) ?? null) : null;
      unit.occupied = true;
    }
  }
  return [...units.values()];
}

/** `GET /api/dcim/racks/{id}/elevation/` (§3.1): the units as a paginated JSON list, or the SVG drawing. */
async function elevation(ctx: ServiceContext, req: Request, res: Response): Promise<void> {
  const identity = identityOf(res);
  const scope = requirePermission(ctx, rack, identity, 'view');
  const id = parseId(req.params.id);
  const [r] = await ctx.db.query(sql`SELECT t.* FROM ${raw(ctx.db.table(rack.table))} t WHERE t.id = ${id} AND ${scope}`);
  if (!r) throw new NotFound();
  const base = baseUrl(req, ctx.settings.publicUrl);
  const url = requestUrl(req, base);
  const params = url.searchParams;
  const face = params.get('face') || 'front';
  if (!(face in FACES)) throw new ValidationError({ face: [`"${face}" is not a valid choice.`] });
  const render = params.get('render') || 'json';
  if (render !== 'json' && render !== 'svg') throw new ValidationError({ render: [`"${render}" is not a valid choice.`] });
  const unitWidth = integerParam(params, 'unit_width', 220);
  const unitHeight = integerParam(params, 'unit_height', 22);
  const legendWidth = integerParam(params, 'legend_width', 30);
  integerParam(params, 'margin_width', 15);
  const exclude = params.get('exclude') ? integerParam(params, 'exclude', 0) : null;
  const expand = booleanParam(params, 'expand_devices', true);
  booleanParam(params, 'include_images', true);
  // devices the user may not view are drawn (they take the space) but not named
  let deviceScope: Sql | null = null;
  try {
    deviceScope = requirePermission(ctx, device, identity, 'view');
  } catch (err) {
    if (!(err instanceof PermissionDenied)) throw err;
  }
  const devices = await mountedDevices(ctx, id, face, render === 'json' ? exclude : null, deviceScope, base);
  if (render === 'svg') {
    const highlight = params.getAll('highlight');
    const svg = renderElevationSvg({ rack: r, face, devices, unitWidth, unitHeight, legendWidth, highlight });
    res.status(200).type('image/svg+xml').send(svg);
    return;
  }
  const nested = await nestedFor(ctx, device.label, devices.filter((d) => d.visible).map((d) => d.id), base);
  let units = rackUnits(r, face, devices, nested, expand);
  const q = params.get('q');
  if (q) units = units.filter((u) => String(u.id).includes(q) || u.name.includes(q));
  const page = parsePage(params, ctx.settings.paginateCount, ctx.settings.maxPageSize);
  const results = units.slice(page.offset, page.limit === null ? undefined : page.offset + page.limit);
  const links = pageLinks(url, page, units.length);
  sendJson(res, 200, { count: units.length, next: links.next, previous: links.previous, results });
}

const query = (name: string, schema: Record<string, unknown>, description?: string) => ({ name, in: 'query', required: false, schema, ...(description ? { description } : {}) });

/** NetBox's RackElevationDetailFilterSerializer, as query parameters. */
const ELEVATION_PARAMETERS = [
  query('face', { type: 'string', enum: Object.keys(FACES), default: 'front' }),
  query('render', { type: 'string', enum: ['json', 'svg'], default: 'json' }),
  query('unit_width', { type: 'integer', default: 220 }),
  query('unit_height', { type: 'integer', default: 22 }),
  query('legend_width', { type: 'integer', default: 30 }),
  query('margin_width', { type: 'integer', default: 15 }),
  query('exclude', { type: 'integer' }),
  query('expand_devices', { type: 'boolean', default: true }),
  query('include_images', { type: 'boolean', default: true }),
  query('highlight', { type: 'array', items: { type: 'string' } }),
  query('q', { type: 'string' }),
  query('limit', { type: 'integer' }),
  query('offset', { type: 'integer' }),
];

const RACK_UNIT = {
  type: 'object',
  properties: {
    id: { type: 'number', readOnly: true },
    name: { type: 'string', readOnly: true },
    face: { type: 'object', properties: { value: { type: 'string', enum: Object.keys(FACES) }, label: { type: 'string' } }, readOnly: true },
    device: { allOf: [{ $ref: '#/components/schemas/BriefDevice' }], nullable: true, readOnly: true },
    occupied: { type: 'boolean', readOnly: true },
    display: { type: 'string', readOnly: true },
  },
  required: ['id', 'name', 'face', 'device', 'occupied', 'display'],
};

export function mountElevation(app: Express, ctx: ServiceContext): void {
  mountRoute(app, {
      path: '/api/dcim/racks/:id/elevation/',
      idOf: rack.verboseName,
      schemas: {
        RackUnit: RACK_UNIT,
        PaginatedRackUnitList: {
          type: 'object',
          required: ['count', 'results'],
          properties: { count: { type: 'integer' }, next: { type: 'string', nullable: true, format: 'uri' }, previous: { type: 'string', nullable: true, format: 'uri' }, results: { type: 'array', items: { $ref: '#/components/schemas/RackUnit' } } },
        },
      },
      operations: {
        get: {
          handler: (req, res) => elevation(ctx, req, res),
          summary: 'Rack elevation representing the list of rack units. Also supports rendering the elevation as an SVG.',
          query: ELEVATION_PARAMETERS,
          response: { $ref: '#/components/schemas/PaginatedRackUnitList' },
          alternatives: { 'image/svg+xml': { type: 'string' } },
          operationId: 'dcim_racks_elevation_retrieve',
        },
      },
  });
}
