import path from 'node:path';
import { InventoryApi, type Row } from './api';
import { changedFields } from './compare';
import { LibraryFileError, type FileProblem } from './errors';
import { listLibraryFiles, readLibraryFile, type LibraryFile } from './library';
import { slugify, TEMPLATE_KINDS, TYPE_ENDPOINT, typeSpecOf, type Body, type TemplateKind, type TypeSpec } from './mapping';
import { loadLibrarySchema } from './schema';
import { FileWriter, type OnError, type Origin } from './writer';

export interface DeviceTypeImportOptions {
  /** The library's folder (holding device-types/, module-types/ and schema/). */
  folder: string;
  /** Our API's base URL, e.g. http://localhost:8000. */
  to: string;
  token: string;
  onError?: OnError;
  /** Files per batch: one list request per model kind per batch. */
  batchSize?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

export interface KindCounts {
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

export interface DeviceTypeImportSummary {
  files: number;
  imported: number;
  /** Files refused (schema or API), with why: the run went on past them (`--on-error=skip`). */
  skipped: { file: string; problems: FileProblem[] }[];
  /** Per endpoint: manufacturers, device-types, module-types, then each template kind. */
  counts: Record<string, KindCounts>;
  writes: { requests: number; objects: number };
  /** Each write request: method and endpoint, objects, milliseconds. */
  requests: { what: string; objects: number; ms: number }[];
  reads: { requests: number };
  seconds: number;
  /** Reading, parsing and validating every file; then reading what exists and writing. */
  phases: { readSeconds: number; writeSeconds: number };
  filesPerSecond: number;
  /** What files hold that is not carried (see decision 032). */
  dropped: string[];
  unresolvedSchemaRefs: string[];
}

/** Imports the library's device and module types into our API: validated first, then set-based and idempotent. */
export async function importDeviceTypes(o: DeviceTypeImportOptions): Promise<DeviceTypeImportSummary> {
  const t0 = performance.now();
  const log = o.log ?? (() => undefined);
  const api = new InventoryApi(o.to.replace(/\/+$/, ''), o.token);
  const writer = new FileWriter(api, o.onError ?? 'stop');
  const run = new Run(api, writer, log);

  const { specs, files, unresolved } = await readAndValidate(o.folder, writer, log);
  const read = performance.now();
  await run.manufacturers(specs);
  await run.loadTypes();
  const size = o.batchSize ?? 200;
  for (let i = 0; i < specs.length; i += size) {
    const batch = specs.slice(i, i + size);
    await run.batch(batch);
    const s = (performance.now() - t0) / 1000;
    log(`${Math.min(i + size, specs.length)}/${specs.length} files, ${api.writes.objects} objects written, ${(Math.min(i + size, specs.length) / s).toFixed(0)} files/s`);
  }
  const seconds = (performance.now() - t0) / 1000;
  const skipped = [...writer.failed].map(([file, problems]) => ({ file, problems }));
  return {
    files,
    imported: specs.filter((s) => !writer.isFailed(s.file)).length,
    skipped,
    counts: run.counts,
    writes: { ...api.writes },
    requests: api.timings,
    reads: { ...api.reads },
    seconds,
    phases: { readSeconds: (read - t0) / 1000, writeSeconds: seconds - (read - t0) / 1000 },
    filesPerSecond: files / seconds,
    dropped: specs.flatMap((s) => s.dropped.map((d) => `${s.file}: ${d}`)),
    unresolvedSchemaRefs: unresolved,
  };
}

/** Every file parsed and checked against the library's schema (and for duplicates) before anything is written. */
async function readAndValidate(folder: string, writer: FileWriter, log: (l: string) => void) {
  const schema = await loadLibrarySchema(path.join(folder, 'schema'));
  const listed = await listLibraryFiles(folder);
  if (!listed.length) throw new Error(`${folder}: no device-types/<Manufacturer>/*.yaml or module-types/<Manufacturer>/*.yaml files`);
  const problems: FileProblem[] = [];
  const good: LibraryFile[] = [];
  for (const { file, kind } of listed) {
    try {
      const f = await readLibraryFile(folder, file, kind);
      const found = schema.validate(f);
      if (found.length) problems.push(...found);
      else good.push(f);
    } catch (err) {
      if (!(err instanceof LibraryFileError)) throw err;
      problems.push(...err.problems);
    }
  }
  const specs = good.map(typeSpecOf);
  problems.push(...duplicates(specs));
  log(`${listed.length} files read and validated, ${new Set(problems.map((p) => p.file)).size} refused`);
  // nothing is written when a file is wrong, unless told to skip it
  if (problems.length) writer.fail(problems);
  return { specs: specs.filter((s) => !writer.isFailed(s.file)), files: listed.length, unresolved: schema.unresolved };
}

/** Two files for one type (a model or slug of a manufacturer): the later is refused, naming the earlier. */
function duplicates(specs: TypeSpec[]): FileProblem[] {
  const seen = new Map<string, string>();
  const out: FileProblem[] = [];
  for (const s of specs) {
    for (const [key, v] of [['model', s.model], ['slug', s.slug]] as const) {
      if (v === undefined || v === '') continue;
      const id = `${s.kind}|${s.manufacturer.toLowerCase()}|${key}|${v.toLowerCase()}`;
      const first = seen.get(id);
      if (first) out.push({ file: s.file, key, line: s.lineOf([key]), message: `${JSON.stringify(v)} is also the ${key} of ${first} (${s.manufacturer})` });
      else seen.set(id, s.file);
    }
  }
  return out;
}

const zero = (): KindCounts => ({ created: 0, updated: 0, deleted: 0, unchanged: 0 });
const ownerKey = (kind: 'device' | 'module', id: unknown) => `${kind}:${Number(id)}`;
const idOf = (v: unknown) => (v && typeof v === 'object' ? Number((v as Row).id) : v === null || v === undefined ? null : Number(v));

/** One run's state: what exists (by natural key), what was written. */
class Run {
  readonly counts: Record<string, KindCounts> = {};
  private readonly manufacturerIds = new Map<string, number>();
  /** `device|<manufacturer id>|model|<model>` and `...|slug|<slug>` -> the existing type. */
  private readonly types = new Map<string, Row>();

  constructor(private readonly api: InventoryApi, private readonly writer: FileWriter, private readonly log: (l: string) => void) {}

  private count(kind: string): KindCounts {
    return (this.counts[kind] ??= zero());
  }

  /** Manufacturers by name (NetBox's unique name; as the community script matches them), created in one request when missing. */
  async manufacturers(specs: TypeSpec[]): Promise<void> {
    // by lower-cased name: the name as first written, and where (to name the file if the API refuses it)
    const wanted = new Map<string, { name: string; origin: Origin }>();
    const want = (name: string, origin: Origin) => wanted.has(name.toLowerCase()) || wanted.set(name.toLowerCase(), { name, origin });
    for (const s of specs) {
      want(s.manufacturer, { file: s.file, keyPath: ['manufacturer'], lineOf: s.lineOf });
      (s.templates.get('inventory-items') ?? []).forEach((t, i) => {
        const m = t.body.manufacturer;
        if (typeof m === 'string' && m) want(m, { file: s.file, keyPath: ['inventory-items', i, 'manufacturer'], lineOf: s.lineOf });
      });
    }
    const existing = await this.api.list('manufacturers');
    const byName = new Map(existing.map((m) => [String(m.name).toLowerCase(), m]));
    const bySlug = new Map(existing.map((m) => [String(m.slug), m]));
    const missing: { name: string; origin: Origin }[] = [];
    for (const [key, w] of wanted) {
      const found = byName.get(key) ?? bySlug.get(slugify(w.name));
      if (found) this.manufacturerIds.set(key, Number(found.id));
      else missing.push(w);
    }
    const created = await this.writer.write('create', 'manufacturers', missing.map((w) => ({ name: w.name, slug: slugify(w.name) })), missing.map((w) => w.origin));
    for (const [i, row] of created) this.manufacturerIds.set(missing[i].name.toLowerCase(), Number(row.id));
    const c = this.count('manufacturers');
    c.created += created.size;
    c.unchanged += wanted.size - missing.length;
    this.log(`manufacturers: ${created.size} created, ${wanted.size - missing.length} existing`);
  }

  /** Every device and module type of the manufacturers concerned, once (a run's lookups are then in memory). */
  async loadTypes(): Promise<void> {
    const ids = [...new Set(this.manufacturerIds.values())];
    for (const kind of ['device', 'module'] as const) {
      for (let i = 0; i < ids.length; i += 100) {
        for (const t of await this.api.list(TYPE_ENDPOINT[kind], { manufacturer_id: ids.slice(i, i + 100) })) this.remember(kind, t);
      }
    }
  }

  private remember(kind: 'device' | 'module', t: Row): void {
    const m = idOf(t.manufacturer);
    this.types.set(`${kind}|${m}|model|${String(t.model)}`, t);
    if (kind === 'device' && t.slug) this.types.set(`${kind}|${m}|slug|${String(t.slug)}`, t);
  }

  private existingType(s: TypeSpec): Row | undefined {
    const m = this.manufacturerIds.get(s.manufacturer.toLowerCase());
    return this.types.get(`${s.kind}|${m}|model|${s.model}`) ?? (s.slug ? this.types.get(`${s.kind}|${m}|slug|${s.slug}`) : undefined);
  }

  /**
   * One batch of files: their types, then each template kind in one list request per verb. Kinds
   * that name no other kind are written at once (each request's wait for its events overlaps the
   * others'), then those naming them (power outlets, front ports).
   */
  async batch(specs: TypeSpec[]): Promise<void> {
    const owners = new Map<TypeSpec, number>();
    const created = new Set<number>();
    await Promise.all(
      (['device', 'module'] as const).map(async (kind) => {
        const mine = specs.filter((s) => s.kind === kind && !this.writer.isFailed(s.file));
        const { ids, made } = await this.syncTypes(kind, mine);
        for (const [s, id] of ids) owners.set(s, id);
        for (const s of made) created.add(owners.get(s)!);
      }),
    );
    const live = [...owners].filter(([s]) => !this.writer.isFailed(s.file));
    // a type made by this run has no templates yet: only the others' are read
    const existing = await this.existingTemplates(live, created);
    const [first, then] = [TEMPLATE_KINDS.filter((k) => !k.refs || k.refs.manufacturer), TEMPLATE_KINDS.filter((k) => k.refs && !k.refs.manufacturer)];
    // deletions first, dependants (front ports, outlets) before what they name, so a renamed template frees its name
    for (const wave of [then, first]) await Promise.all(wave.map((k) => this.deleteRemoved(k, live, existing.get(k.key)!)));
    for (const wave of [first, then]) await Promise.all(wave.map((k) => this.syncTemplates(k, live, existing)));
    await this.syncBridges(live, existing.get('interfaces')!);
  }

  /** Interfaces' bridges (another interface of the same type, by name), PATCHed once every interface exists. */
  private async syncBridges(live: [TypeSpec, number][], interfaces: Map<string, Map<string, Row>>): Promise<void> {
    const c = this.count('interface-template-bridges');
    const updates: Body[] = [];
    const origins: Origin[] = [];
    for (const [s, id] of live) {
      if (this.writer.isFailed(s.file)) continue;
      const mine = interfaces.get(ownerKey(s.kind, id));
      (s.templates.get('interfaces') ?? []).forEach((t, i) => {
        const row = mine?.get(t.name);
        if (!row) return;
        const origin: Origin = { file: s.file, keyPath: ['interfaces', i, 'bridge'], lineOf: s.lineOf };
        const target = t.bridge ? mine?.get(t.bridge) : undefined;
        if (t.bridge && !target) {
          this.writer.fail([{ file: s.file, key: `interfaces[${i}].bridge`, line: s.lineOf(origin.keyPath), message: `names ${JSON.stringify(t.bridge)}, which the file does not define` }]);
          return;
        }
        const want = target ? Number(target.id) : null;
        if (want === idOf(row.bridge)) {
          if (want !== null) c.unchanged += 1;
          return;
        }
        updates.push({ id: Number(row.id), bridge: want });
        origins.push(origin);
      });
    }
    c.updated += (await this.writer.write('update', 'interface-templates', updates, origins)).size;
  }

  /** Creates missing types and PATCHes the changed fields of existing ones; returns each file's type id. */
  private async syncTypes(kind: 'device' | 'module', specs: TypeSpec[]): Promise<{ ids: Map<TypeSpec, number>; made: TypeSpec[] }> {
    const endpoint = TYPE_ENDPOINT[kind];
    const c = this.count(endpoint);
    const ids = new Map<TypeSpec, number>();
    const creates: TypeSpec[] = [];
    const updates: { s: TypeSpec; id: number; body: Body }[] = [];
    for (const s of specs) {
      const body = { ...s.body, manufacturer: this.manufacturerIds.get(s.manufacturer.toLowerCase()) };
      const found = this.existingType(s);
      if (!found) {
        creates.push(s);
        continue;
      }
      ids.set(s, Number(found.id));
      const diff = changedFields(body, found);
      if (Object.keys(diff).length) updates.push({ s, id: Number(found.id), body: diff });
      else c.unchanged += 1;
    }
    const origin = (s: TypeSpec): Origin => ({ file: s.file, keyPath: [], lineOf: s.lineOf });
    const made = await this.writer.write('create', endpoint, creates.map((s) => ({ ...s.body, manufacturer: this.manufacturerIds.get(s.manufacturer.toLowerCase()) })), creates.map(origin));
    for (const [i, row] of made) {
      ids.set(creates[i], Number(row.id));
      this.remember(kind, row);
    }
    const changed = await this.writer.write('update', endpoint, updates.map((u) => ({ id: u.id, ...u.body })), updates.map((u) => origin(u.s)));
    for (const row of changed.values()) this.remember(kind, row);
    c.created += made.size;
    c.updated += changed.size;
    return { ids, made: [...made.keys()].map((i) => creates[i]) };
  }

  /** The templates of every kind that the batch's types hold now, by kind, owner and name. */
  private async existingTemplates(live: [TypeSpec, number][], created: Set<number>): Promise<Map<string, Map<string, Map<string, Row>>>> {
    const out = new Map<string, Map<string, Map<string, Row>>>();
    await Promise.all(
      TEMPLATE_KINDS.map(async (k) => {
        const byOwner = new Map<string, Map<string, Row>>();
        for (const kind of ['device', 'module'] as const) {
          if (k.deviceOnly && kind === 'module') continue;
          const ids = live.filter(([s, id]) => s.kind === kind && !created.has(id)).map(([, id]) => id);
          for (let i = 0; i < ids.length; i += 100) {
            const rows = await this.api.list(k.endpoint, { [kind === 'device' ? 'devicetype_id' : 'moduletype_id']: ids.slice(i, i + 100) });
            for (const r of rows) {
              const owner = ownerKey(kind, idOf(kind === 'device' ? r.device_type : r.module_type));
              if (!byOwner.has(owner)) byOwner.set(owner, new Map());
              byOwner.get(owner)!.set(String(r.name), r);
            }
          }
        }
        out.set(k.key, byOwner);
      }),
    );
    return out;
  }

  /** Templates a file no longer lists, deleted in one request. */
  private async deleteRemoved(k: TemplateKind, live: [TypeSpec, number][], existing: Map<string, Map<string, Row>>): Promise<void> {
    const gone: number[] = [];
    for (const [s, id] of live) {
      const wanted = new Set((s.templates.get(k.key) ?? []).map((t) => t.name));
      for (const [name, row] of existing.get(ownerKey(s.kind, id)) ?? new Map<string, Row>()) {
        if (!wanted.has(name)) {
          gone.push(Number(row.id));
          existing.get(ownerKey(s.kind, id))!.delete(name);
        }
      }
    }
    if (gone.length) await this.api.remove(k.endpoint, gone);
    this.count(k.endpoint).deleted += gone.length;
  }

  /** A kind's templates: refs resolved by name, then missing ones created and changed ones PATCHed, one request each. */
  private async syncTemplates(k: TemplateKind, live: [TypeSpec, number][], existing: Map<string, Map<string, Map<string, Row>>>): Promise<void> {
    const c = this.count(k.endpoint);
    const mine = existing.get(k.key)!;
    const creates: Body[] = [];
    const createOrigins: Origin[] = [];
    const createOwners: string[] = [];
    const updates: Body[] = [];
    const updateOrigins: Origin[] = [];
    for (const [s, id] of live) {
      if (this.writer.isFailed(s.file)) continue;
      const owner = ownerKey(s.kind, id);
      (s.templates.get(k.key) ?? []).forEach((t, i) => {
        const origin: Origin = { file: s.file, keyPath: [k.key, i], lineOf: s.lineOf };
        const body = this.resolveRefs(k, t.body, owner, existing, origin);
        const found = mine.get(owner)?.get(t.name);
        if (!found) {
          creates.push({ ...body, [s.kind === 'device' ? 'device_type' : 'module_type']: id });
          createOrigins.push(origin);
          createOwners.push(owner);
          return;
        }
        const diff = changedFields(body, found);
        if (Object.keys(diff).length) {
          updates.push({ id: Number(found.id), ...diff });
          updateOrigins.push(origin);
        } else c.unchanged += 1;
      });
    }
    const made = await this.writer.write('create', k.endpoint, creates, createOrigins);
    for (const [i, row] of made) {
      if (!mine.has(createOwners[i])) mine.set(createOwners[i], new Map());
      mine.get(createOwners[i])!.set(String(row.name), row);
    }
    const changed = await this.writer.write('update', k.endpoint, updates, updateOrigins);
    c.created += made.size;
    c.updated += changed.size;
  }

  /** A power outlet's power port, a front port's rear port (same owner) and an inventory item's manufacturer, from names to ids. */
  private resolveRefs(k: TemplateKind, body: Body, owner: string, existing: Map<string, Map<string, Map<string, Row>>>, origin: Origin): Body {
    if (!k.refs) return body;
    const out = { ...body };
    for (const [field, target] of Object.entries(k.refs)) {
      const name = body[field];
      if (name === null || name === undefined || name === '') continue;
      const id = target === 'manufacturer' ? this.manufacturerIds.get(String(name).toLowerCase()) : existing.get(target)?.get(owner)?.get(String(name))?.id;
      if (id === undefined) {
        // the community script leaves an outlet's unknown power port out; a front port cannot do without its rear port
        if (field === 'power_port') out[field] = null;
        else this.writer.fail([{ file: origin.file, key: `${origin.keyPath[0]}[${origin.keyPath[1]}].${field}`, line: origin.lineOf([...origin.keyPath, field]), message: `names ${JSON.stringify(name)}, which the file does not define` }]);
        continue;
      }
      out[field] = Number(id);
    }
    return out;
  }
}
