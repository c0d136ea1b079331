import type { LibraryFile, TypeKind } from './library';

export type Body = Record<string, unknown>;

/**
 * One component template kind: the library's key, our endpoint, the fields
 * copied from the YAML with the value each takes when the key is absent (so a
 * key removed from a file resets the field), and the fields that name
 * another object by name (resolved to its id before writing).
 */
export interface TemplateKind {
  key: string;
  endpoint: string;
  fields: Record<string, unknown>;
  /** field -> what it names: a template kind's key (same owner) or `manufacturer`. */
  refs?: Record<string, string>;
  /** NetBox 3.7 gives module types none of these (module bays, device bays, inventory items). */
  deviceOnly?: boolean;
}

const common = { label: '', description: '' };

/** In write order: a kind is written after the kinds its refs name. */
export const TEMPLATE_KINDS: TemplateKind[] = [
  { key: 'console-ports', endpoint: 'console-port-templates', fields: { ...common, type: '' } },
  { key: 'console-server-ports', endpoint: 'console-server-port-templates', fields: { ...common, type: '' } },
  { key: 'power-ports', endpoint: 'power-port-templates', fields: { ...common, type: '', maximum_draw: null, allocated_draw: null } },
  { key: 'interfaces', endpoint: 'interface-templates', fields: { ...common, type: '', enabled: true, mgmt_only: false, poe_mode: '', poe_type: '', rf_role: '' } },
  { key: 'rear-ports', endpoint: 'rear-port-templates', fields: { ...common, type: '', color: '', positions: 1 } },
  { key: 'module-bays', endpoint: 'module-bay-templates', fields: { ...common, position: '' }, deviceOnly: true },
  { key: 'device-bays', endpoint: 'device-bay-templates', fields: { ...common }, deviceOnly: true },
  { key: 'inventory-items', endpoint: 'inventory-item-templates', fields: { ...common, part_id: '', manufacturer: null }, refs: { manufacturer: 'manufacturer' }, deviceOnly: true },
  { key: 'power-outlets', endpoint: 'power-outlet-templates', fields: { ...common, type: '', feed_leg: '', power_port: null }, refs: { power_port: 'power-ports' } },
  { key: 'front-ports', endpoint: 'front-port-templates', fields: { ...common, type: '', color: '', rear_port: null, rear_port_position: 1 }, refs: { rear_port: 'rear-ports' } },
];

/** Device type fields the library carries, with NetBox's defaults; others (default_platform, exclude_from_utilization) stay as the user set them. */
const DEVICE_TYPE_FIELDS: Record<string, unknown> = {
  model: '', slug: '', part_number: '', u_height: 1, is_full_depth: true, subdevice_role: '', airflow: '',
  weight: null, weight_unit: '', description: '', comments: '',
};
const MODULE_TYPE_FIELDS: Record<string, unknown> = { model: '', part_number: '', weight: null, weight_unit: '', description: '', comments: '' };

export const TYPE_ENDPOINT: Record<TypeKind, string> = { device: 'device-types', module: 'module-types' };

/** A template as the file describes it; refs still hold names. */
export interface TemplateSpec {
  name: string;
  body: Body;
  /** An interface's bridge: another interface of the file, by name (set once both exist). */
  bridge?: string | null;
}

/** What one file asks for. */
export interface TypeSpec {
  file: string;
  kind: TypeKind;
  manufacturer: string;
  model: string;
  slug?: string;
  body: Body;
  templates: Map<string, TemplateSpec[]>;
  /** What of the file is not carried, for the run's log (e.g. module bays of a module type). */
  dropped: string[];
  lineOf: LibraryFile['lineOf'];
}

/** The file's values as our API takes them (manufacturer and refs still names). */
export function typeSpecOf(f: LibraryFile): TypeSpec {
  const d = f.data;
  const fields = f.kind === 'device' ? DEVICE_TYPE_FIELDS : MODULE_TYPE_FIELDS;
  const body = pick(d, fields);
  const templates = new Map<string, TemplateSpec[]>();
  const dropped: string[] = [];
  for (const k of TEMPLATE_KINDS) {
    const items = Array.isArray(d[k.key]) ? (d[k.key] as Body[]) : [];
    if (!items.length) continue;
    if (k.deviceOnly && f.kind === 'module') {
      dropped.push(`${k.key} (${items.length}): NetBox 3.7's module types have none`);
      continue;
    }
    templates.set(
      k.key,
      items.map((item) => ({
        name: clean(item.name) as string,
        body: { name: clean(item.name), ...pick(item, k.fields) },
        ...(k.key === 'interfaces' ? { bridge: item.bridge === undefined || item.bridge === null ? null : String(clean(item.bridge)) } : {}),
      })),
    );
  }
  return { file: f.file, kind: f.kind, manufacturer: clean(d.manufacturer) as string, model: String(body.model), slug: body.slug as string | undefined, body, templates, dropped, lineOf: f.lineOf };
}

/** The fields of `fields` from `src` (absent or null: the default), strings trimmed as NetBox's serializers trim them. */
function pick(src: Body, fields: Record<string, unknown>): Body {
  const out: Body = {};
  for (const [k, dflt] of Object.entries(fields)) out[k] = src[k] === undefined || src[k] === null ? dflt : clean(src[k]);
  return out;
}

const clean = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' && !Number.isFinite(v) ? null : v);

/** NetBox's slugify of a manufacturer's name (as the community import script does). */
export const slugify = (name: string) =>
  name.toLowerCase().replace(/[^a-z0-9_\s-]/g, '').trim().replace(/[\s-]+/g, '-').slice(0, 100) || 'manufacturer';
