import { bootStack, type Stack } from '@inventory/testkit';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { contentType } from '@inventory/refs';

/**
 * NetBox 3.7's filters and lookups on extras' content-type fields and synced
 * data that the contract's passes cannot tell apart (its objects all share
 * one value): each with an object that must match and one that must not, and
 * the 400s NetBox answers for values it rejects.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy }, {}, { template: true });
});
afterAll(() => stack?.stop());

type Obj = Record<string, any>;
const names = (body: { results: Obj[] }) => body.results.map((o) => o.name ?? o.slug).sort();

describe('tags by object type', () => {
  test('when tags are filtered by object_types and object_types__n, then those allowed on the type come back, or those not', async () => {
    const ex = stack.client('extras');
    const tenant = contentType('tenancy.tenant')!.id;
    const contact = contentType('tenancy.contact')!.id;
    expect((await ex.post('/api/extras/tags/', { name: 'For tenants', slug: 'ot-tenants', object_types: ['tenancy.tenant'] })).status).toBe(201);
    expect((await ex.post('/api/extras/tags/', { name: 'For contacts', slug: 'ot-contacts', object_types: ['tenancy.contact'] })).status).toBe(201);
    const scope = 'slug=ot-tenants&slug=ot-contacts';
    expect(names((await ex.get(`/api/extras/tags/?${scope}&object_types=${tenant}`)).body)).toEqual(['For tenants']);
    expect(names((await ex.get(`/api/extras/tags/?${scope}&object_types__n=${tenant}`)).body)).toEqual(['For contacts']);
    expect(names((await ex.get(`/api/extras/tags/?${scope}&object_types__n=${tenant}&object_types__n=${contact}`)).body)).toEqual([]);
  });
});

describe('custom fields by content type', () => {
  test('when custom fields are filtered by the lookups of content_types and content_type_id, then each selects by the app_label.model labels or ids', async () => {
    const ex = stack.client('extras');
    expect((await ex.post('/api/extras/custom-fields/', { name: 'ctl_tenant', content_types: ['tenancy.tenant'] })).status).toBe(201);
    expect((await ex.post('/api/extras/custom-fields/', { name: 'ctl_contact', content_types: ['tenancy.contact', 'tenancy.contactgroup'] })).status).toBe(201);
    const get = async (q: string) => {
      const r = await ex.get(`/api/extras/custom-fields/?name=ctl_tenant&name=ctl_contact&${q}`);
      expect([q, r.status]).toEqual([q, 200]);
      return names(r.body);
    };
    expect(await get('content_types=tenancy.tenant')).toEqual(['ctl_tenant']);
    expect(await get('content_types__n=tenancy.tenant')).toEqual(['ctl_contact']);
    expect(await get('content_types__n=tenancy.contactgroup')).toEqual(['ctl_tenant']);
    expect(await get('content_types__ic=ContactGroup')).toEqual(['ctl_contact']);
    expect(await get('content_types__nic=contactgroup')).toEqual(['ctl_tenant']);
    expect(await get('content_types__isw=tenancy.contact')).toEqual(['ctl_contact']);
    expect(await get('content_types__nisw=tenancy.contact')).toEqual(['ctl_tenant']);
    expect(await get('content_types__iew=.tenant')).toEqual(['ctl_tenant']);
    expect(await get('content_types__niew=.tenant')).toEqual(['ctl_contact']);
    expect(await get('content_types__ie=TENANCY.CONTACT')).toEqual(['ctl_contact']);
    expect(await get('content_types__nie=tenancy.contact')).toEqual(['ctl_tenant']);
    expect(await get('content_types__ic=%')).toEqual([]);
    const tenant = contentType('tenancy.tenant')!.id;
    const ids = [contentType('tenancy.contact')!.id, contentType('tenancy.contactgroup')!.id];
    const expectFor = (cmp: (a: number, b: number) => boolean) => [...(ids.some((id) => cmp(id, tenant)) ? ['ctl_contact'] : []), ...(cmp(tenant, tenant) ? ['ctl_tenant'] : [])];
    expect(await get(`content_type_id__lt=${tenant}`)).toEqual(expectFor((a, b) => a < b));
    expect(await get(`content_type_id__lte=${tenant}`)).toEqual(expectFor((a, b) => a <= b));
    expect(await get(`content_type_id__gt=${tenant}`)).toEqual(expectFor((a, b) => a > b));
    expect(await get(`content_type_id__gte=${tenant}`)).toEqual(expectFor((a, b) => a >= b));
    expect(await get(`content_type_id__n=${ids[1]}`)).toEqual(['ctl_tenant']);
    expect(await get('content_type_id__empty=1')).toEqual([]);
    expect(await get('content_type_id__empty=0')).toEqual(['ctl_contact', 'ctl_tenant']);
    // a declared MultiValueNumberFilter keeps its class for `empty` (lookup isnull): NetBox wants a number
    const bad = await ex.get('/api/extras/custom-fields/?content_type_id__empty=true');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ content_type_id__empty: ['Enter a whole number.'] });
  });
});

describe('choice sets by choice', () => {
  test('when choice sets are filtered by choice, then those whose extra choices hold the value or label come back', async () => {
    const ex = stack.client('extras');
    await ex.post('/api/extras/custom-field-choice-sets/', { name: 'Colours', extra_choices: [['red', 'Red'], ['green', 'Green']] });
    await ex.post('/api/extras/custom-field-choice-sets/', { name: 'Shapes', extra_choices: [['round', 'Round']], base_choices: 'IATA' });
    const get = async (q: string) => names((await ex.get(`/api/extras/custom-field-choice-sets/?name=Colours&name=Shapes&${q}`)).body);
    expect(await get('choice=red')).toEqual(['Colours']);
    expect(await get('choice=Round')).toEqual(['Shapes']);
    expect(await get('choice=red&choice=round')).toEqual(['Colours', 'Shapes']);
    expect(await get('choice=RED')).toEqual([]);
    expect(await get('choice=re')).toEqual([]);
    expect(await get('choice=')).toEqual(['Colours', 'Shapes']);
  });
});

describe('synced data filters', () => {
  test('when a data source or file id is given, then it is an invalid choice (none exist), and a bad data_synced is a 400', async () => {
    const ex = stack.client('extras');
    for (const path of ['export-templates', 'config-contexts', 'config-templates']) {
      const bad = await ex.get(`/api/extras/${path}/?data_source_id__n=7`);
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ data_source_id__n: ['Select a valid choice. 7 is not one of the available choices.'] });
      const file = await ex.get(`/api/extras/${path}/?data_file_id=x`);
      expect(file.status).toBe(400);
      expect(file.body).toEqual({ data_file_id: ['\u201cx\u201d is not a valid value.'] });
      const when = await ex.get(`/api/extras/${path}/?data_synced=yesterday`);
      expect(when.status).toBe(400);
      expect(when.body).toEqual({ data_synced: ['Enter a valid date/time.'] });
    }
  });
});
