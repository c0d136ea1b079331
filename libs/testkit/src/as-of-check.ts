/**
 * The contract's time-travel pass (docs/decisions/034), for every declared
 * model, in a few requests: an object created, changed and deleted, then
 * read `as_of` each moment (detail, and the list with a filter) and diffed
 * between the first two. The reads as of a moment must be the answers the
 * writes gave then.
 */
import type { Reply } from './http';
import type { PassContext } from './probe';

type Obj = Record<string, any>;

function ok(reply: Reply, status: number, what: string): Reply {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status}: ${reply.text.slice(0, 600)}`);
  return reply;
}

/** A moment after everything answered so far, and before anything sent next (the clock moves on first). */
async function moment(): Promise<string> {
  const at = new Date().toISOString();
  await new Promise((r) => setTimeout(r, 3));
  return at;
}

const q = (at: string) => `as_of=${encodeURIComponent(at)}`;
const differing = (a: Obj, b: Obj) => [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => JSON.stringify(a[k] ?? null) !== JSON.stringify(b[k] ?? null)).sort();

export function asOfTests(pass: () => PassContext): void {
  test('when an object is created, changed and deleted, then reads as_of each moment and the diff between them give that moment', async () => {
    const { api, path, schema, checker, make, patch } = pass();
    const created = ok(await api.post(path, await make()), 201, 'create').body as Obj;
    const t1 = await moment();
    const patched = ok(await api.patch(`${path}${created.id}/`, patch), 200, 'patch').body as Obj;
    const t2 = await moment();
    ok(await api.delete(`${path}${created.id}/`), 204, 'delete');
    const t3 = await moment();

    const then = ok(await api.get(`${path}${created.id}/?${q(t1)}`), 200, 'detail as of the create');
    checker.check(schema, then.body);
    expect(then.body).toEqual(created);
    const list = ok(await api.get(`${path}?id=${created.id}&${q(t2)}`), 200, 'list as of the patch');
    expect(list.body.results).toEqual([patched]);
    ok(await api.get(`${path}${created.id}/?${q(t3)}`), 404, 'detail as of the delete');
    const diff = ok(await api.get(`${path}${created.id}/diff/?from=${encodeURIComponent(t1)}&to=${encodeURIComponent(t2)}`), 200, 'diff').body;
    expect(Object.keys(diff.changes).sort()).toEqual(differing(created, patched));
  });
}
