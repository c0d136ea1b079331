import { contentType } from '@inventory/refs';
import type { ModelDef, RelationField } from '@inventory/rest';
import type { Reply } from './http';
import type { PassContext } from './probe';
import type { Stack } from './stack';

type Obj = Record<string, any>;

/** Writes in the owner each followed at once by a read here, per reference (zero stale reads allowed). */
const CONSISTENCY_ROUNDS = 5;

function ok(reply: Reply, status: number, what: string): Reply {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status}: ${reply.text.slice(0, 500)}`);
  return reply;
}

/** The model's references to other services' models, from its declaration. */
export function crossServiceReferences(model: ModelDef, service: string, exclude: string[] = []): [string, RelationField][] {
  return Object.entries(model.fields).filter((e): e is [string, RelationField] => {
    const owner = e[1].type === 'fk' && !e[1].virtual && !e[1].readOnly ? contentType(e[1].to)?.service : undefined;
    return !!owner && owner !== service && !exclude.includes(e[0]);
  });
}

/**
 * The contract's cross-service pass, one test per reference to another
 * service's model, generated from the declaration: written by id and by
 * attribute set (the second a moment after the target was made: a projection
 * miss), nested on read, filtered by id and slug, ordered by, and the
 * target renamed in its owner and read here at once on a new connection,
 * round after round (read-your-writes across services), and the reference's
 * delete rule applied by the owner's delete (PROTECT: 409, nothing deleted;
 * SET_NULL: cleared; CASCADE: deleted) by the time the delete is answered
 * (a plain reference reads as the bare id). Targets are made with a name and slug (what NetBox's referenced
 * models share); `targets` gives other bodies. Attribute sets and
 * constraints name the target by the reference's filter key (slug unless
 * declared otherwise: a user by username).
 */
export function crossServiceTests(
  o: { stack: () => Stack; service: string; model: ModelDef; path: string; targets?: Record<string, (i: number) => Obj>; crossServiceExclude?: string[]; unserved?: string[] },
  pass: () => PassContext,
): void {
  const unserved = new Set(o.unserved ?? []);
  const references = crossServiceReferences(o.model, o.service, o.crossServiceExclude).filter(([, field]) => !unserved.has(field.to));
  if (unserved.size) {
    test('when a reference\'s target is served by no service yet, then its owner does not answer for it (the pass leaves it out)', async () => {
      const stack = o.stack();
      for (const label of unserved) {
        const ct = contentType(label);
        if (!ct || !(ct.service in stack.urls)) continue;
        const reply = await stack.client(ct.service).get(`/api/${ct.service}/${ct.endpoint}/`);
        expect([label, reply.status]).toEqual([label, 404]);
      }
    });
  }
  if (!references.length) return;
  let n = 0;
  const targetBody = (label: string) => {
    n++;
    const made = o.targets?.[label];
    return made ? made(n) : { name: `Xref ${o.model.model} ${n}`, slug: `xref-${o.model.model}-${n}` };
  };

  test('when it refers to other services\' objects, then each reference is written by id and attributes, read nested, filtered, ordered, and its delete rule holds', async () => {
    const ctx = pass();
    const stack = o.stack();
    for (const [name, field] of references) {
      const ct = contentType(field.to)!;
      if (!(ct.service in stack.urls)) throw new Error(`${name} refers to ${field.to}: the contract's stack must run ${ct.service}`);
      const owner = stack.client(ct.service);
      const targetPath = `/api/${ct.service}/${ct.endpoint}/`;
      const target = ok(await owner.post(targetPath, targetBody(field.to)), 201, `${name}: making the target`).body;
      const byId = ok(await ctx.api.post(ctx.path, { ...(await ctx.make()), [name]: target.id }), 201, `${name}: by id`).body;
      // the target's key: its slug, or what the reference's filter names it by (a user's username)
      const key = field.filterKey === undefined ? 'slug' : field.filterKey;
      // a reference with no key filter is written by the target's slug, or its name where it has none (a config template)
      const attr = key ?? (target.slug !== undefined ? 'slug' : 'name');
      // a bare primary key (a saved filter's user) takes no attribute set: the second is written by the id as text
      const byAttrs = ok(await ctx.api.post(ctx.path, { ...(await ctx.make()), [name]: field.pk ? String(target.id) : { [attr]: target[attr] } }), 201, `${name}: by attributes`).body;
      for (const made of [byId, byAttrs]) {
        if (field.pk) expect([name, made[name]]).toEqual([name, target.id]);
        else expect([name, made[name]?.id, made[name]?.display]).toEqual([name, target.id, target.display]);
      }
      const detail = ok(await ctx.api.get(`${ctx.path}${byId.id}/`), 200, `${name}: detail`).body;
      expect(detail[name]).toEqual(byId[name]);
      const both = [byId.id, byAttrs.id].sort((a, b) => a - b);
      const found = async (q: string) => (ok(await ctx.api.get(`${ctx.path}?${q}&limit=1000`), 200, `${name}: ${q}`).body.results as Obj[]).map((x) => x.id).sort((a, b) => a - b);
      expect([name, await found(`${field.idFilter ?? `${name}_id`}=${target.id}`)]).toEqual([name, both]);
      if (key) expect([name, await found(`${name}=${encodeURIComponent(target[key])}`)]).toEqual([name, both]);
      for (const dir of ['', '-']) ok(await ctx.api.get(`${ctx.path}?ordering=${dir}${name}`), 200, `${name}: ordering`);
      // a permission constrained through the reference (by the target's slug: the projection) sees exactly the objects naming it
      const constrained = stack.client(o.service).withIdentity({
        user: { id: 9_000_001, username: 'constrained', is_superuser: false, is_staff: false, is_active: true },
        token: { id: 9_000_001, write_enabled: false },
        permissions: [{ object_types: [o.model.label], actions: ['view'], constraints: target[attr] ? { [`${name}__${attr}`]: target[attr] } : { [`${name}__id`]: target.id } }],
      });
      const visible = (ok(await constrained.get(`${ctx.path}?limit=1000`), 200, `${name}: constrained`).body.results as Obj[]).map((x) => x.id).sort((a, b) => a - b);
      expect([name, visible]).toEqual([name, both]);

      // read-your-writes across services: every change of the target in its owner shows here as soon as it is answered,
      // read on a connection of its own (another client), round after round; not one stale read
      if (!field.pk && typeof target.name === 'string') {
        const fresh = ctx.api.onNewConnections();
        for (let round = 1; round <= CONSISTENCY_ROUNDS; round++) {
          const renamed = ok(await owner.patch(`${targetPath}${target.id}/`, { name: `${target.name} r${round}` }), 200, `${name}: renaming the target`).body;
          const seen = ok(await fresh.get(`${ctx.path}${byId.id}/`), 200, `${name}: read after the rename`).body;
          expect([name, round, seen[name]?.display]).toEqual([name, round, renamed.display]);
        }
      }

      const deleted = await owner.delete(`${targetPath}${target.id}/`);
      const ours = () => found(`id=${byId.id}&id=${byAttrs.id}`);
      if (field.onDelete === 'PROTECT') {
        expect([name, deleted.status]).toEqual([name, 409]);
        expect(deleted.body.detail).toMatch(/^Unable to delete object\. \d+ dependent objects were found: /);
        ok(await owner.get(`${targetPath}${target.id}/`), 200, `${name}: the protected target`);
        expect(await ours()).toEqual(both);
        continue;
      }
      expect([name, deleted.status]).toEqual([name, 204]);
      // applied by this service from the delete's event before the delete was answered
      if (field.onDelete === 'CASCADE') {
        expect([name, await ours()]).toEqual([name, []]);
      } else {
        const after = await Promise.all(both.map(async (id) => ok(await ctx.api.get(`${ctx.path}${id}/`), 200, 'read').body[name]));
        expect([name, after]).toEqual([name, both.map(() => null)]);
      }
    }
  });
}

/** Services whose tag projection a contract of this test file checks already (jest loads modules per file). */
const tagsChecked = new Set<string>();

/**
 * Tags are extras' objects, shown here from this service's projection of
 * them: a tag renamed or deleted in extras is renamed on, or gone from, this
 * model's objects as soon as extras answers, read on a new connection. One
 * model per service and test file: the projection is the service's, not the
 * model's.
 */
export function tagConsistencyTests(o: { stack: () => Stack; model: ModelDef; service: string }, pass: () => PassContext): void {
  if (!o.model.tags || o.service === 'extras' || tagsChecked.has(o.service)) return;
  tagsChecked.add(o.service);
  test("when a tag of its objects is renamed or deleted in extras, then its objects show that at once", async () => {
    const ctx = pass();
    const stack = o.stack();
    if (!('extras' in stack.urls)) return;
    const extras = stack.client('extras');
    const slug = `consistency-${o.model.model}`;
    const tag = ok(await extras.post('/api/extras/tags/', { name: slug, slug }), 201, 'making the tag').body;
    const obj = ok(await ctx.api.post(ctx.path, { ...(await ctx.make()), tags: [{ slug }] }), 201, 'an object with the tag').body;
    const fresh = ctx.api.onNewConnections();
    for (let round = 1; round <= 2; round++) {
      ok(await extras.patch(`/api/extras/tags/${tag.id}/`, { name: `${slug} r${round}` }), 200, 'renaming the tag');
      const seen = ok(await fresh.get(`${ctx.path}${obj.id}/`), 200, 'read after the rename').body;
      expect([round, seen.tags.map((t: Obj) => t.name)]).toEqual([round, [`${slug} r${round}`]]);
    }
    ok(await extras.delete(`/api/extras/tags/${tag.id}/`), 204, 'deleting the tag');
    expect(ok(await fresh.get(`${ctx.path}${obj.id}/`), 200, 'read after the delete').body.tags).toEqual([]);
  });
}
