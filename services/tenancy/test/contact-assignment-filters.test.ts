import { bootStack, type Stack, type Client } from '@inventory/testkit';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { contentType } from '@inventory/refs';

/**
 * NetBox 3.7's ContactAssignmentFilterSet filters: `q` (the contact's or the
 * role's name), `group_id` / `group` (the contact's group and every group
 * below it, `__n` excluding them), `content_type_id` and `content_type__n`.
 */
let stack: Stack;
let api: Client;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy }, {}, { template: true });
  api = stack.client('tenancy');
});
afterAll(() => stack?.stop());

type Obj = Record<string, any>;

async function made(path: string, body: Obj): Promise<Obj> {
  const r = await api.post(path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  return r.body;
}

describe('contact assignment filters', () => {
  let ids: Record<string, number> = {};
  let scope = '';
  const contactsOf = async (q: string) => {
    const r = await api.get(`/api/tenancy/contact-assignments/?${scope}&${q}`);
    expect([q, r.status]).toEqual([q, 200]);
    expect(r.headers.get('x-ignored-parameters')).toBeNull();
    return (r.body.results as Obj[]).map((a) => a.contact.display as string).sort();
  };

  beforeAll(async () => {
    const top = await made('/api/tenancy/contact-groups/', { name: 'CA top', slug: 'ca-top' });
    const below = await made('/api/tenancy/contact-groups/', { name: 'CA below', slug: 'ca-below', parent: top.id });
    const other = await made('/api/tenancy/contact-groups/', { name: 'CA other', slug: 'ca-other' });
    const role = await made('/api/tenancy/contact-roles/', { name: 'Escalation desk', slug: 'escalation-desk' });
    const plain = await made('/api/tenancy/contact-roles/', { name: 'Plain role', slug: 'plain-role' });
    const tenant = await made('/api/tenancy/tenants/', { name: 'CA tenant', slug: 'ca-tenant' });
    const people: [string, number | null, number][] = [
      ['Ada Top', top.id, plain.id],
      ['Bob Below', below.id, plain.id],
      ['Cy Other', other.id, role.id],
      ['Di Nogroup', null, plain.id],
    ];
    const assignments: number[] = [];
    for (const [name, group, r] of people) {
      const c = await made('/api/tenancy/contacts/', { name, group });
      assignments.push((await made('/api/tenancy/contact-assignments/', { content_type: 'tenancy.tenant', object_id: tenant.id, contact: c.id, role: r })).id);
    }
    ids = { top: top.id, below: below.id, other: other.id };
    scope = assignments.map((id) => `id=${id}`).join('&');
  });

  test('when filtered by q, then assignments whose contact or role name contains the text come back', async () => {
    expect(await contactsOf('q=below')).toEqual(['Bob Below']);
    expect(await contactsOf('q=ESCALATION')).toEqual(['Cy Other']);
    expect(await contactsOf('q=nobody-has-this')).toEqual([]);
    expect(await contactsOf('q=%20')).toHaveLength(4);
  });

  test('when filtered by group_id or group, then the contact group and its descendants count; __n leaves them out', async () => {
    expect(await contactsOf(`group_id=${ids.top}`)).toEqual(['Ada Top', 'Bob Below']);
    expect(await contactsOf(`group_id=${ids.below}`)).toEqual(['Bob Below']);
    expect(await contactsOf(`group_id__n=${ids.top}`)).toEqual(['Cy Other', 'Di Nogroup']);
    expect(await contactsOf('group=ca-top')).toEqual(['Ada Top', 'Bob Below']);
    expect(await contactsOf('group=ca-other&group=ca-below')).toEqual(['Bob Below', 'Cy Other']);
    expect(await contactsOf('group__n=ca-below')).toEqual(['Ada Top', 'Cy Other', 'Di Nogroup']);
    const unknown = await api.get('/api/tenancy/contact-assignments/?group=no-such-group');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ group: ['Select a valid choice. no-such-group is not one of the available choices.'] });
  });

  test('when filtered by content_type_id or content_type__n, then the assignments on that type come back or are left out', async () => {
    const tenant = contentType('tenancy.tenant')!.id;
    const provider = contentType('circuits.provider')!.id;
    expect(await contactsOf(`content_type_id=${tenant}`)).toHaveLength(4);
    expect(await contactsOf(`content_type_id=${provider}`)).toEqual([]);
    expect(await contactsOf(`content_type_id__n=${tenant}`)).toEqual([]);
    expect(await contactsOf(`content_type_id__n=${provider}`)).toHaveLength(4);
    expect(await contactsOf('content_type__n=tenancy.tenant')).toEqual([]);
    expect(await contactsOf('content_type__n=circuits.provider')).toHaveLength(4);
  });
});
