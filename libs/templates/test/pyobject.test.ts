import { PyObject, pyStr, renderJinja } from '@inventory/templates';

const site = PyObject.of({ id: 7, name: 'DC1', slug: 'dc1' }, 'DC1', 'Site');
const device = PyObject.of({ id: 1, name: 'r1', status: 'active', site, tenant: null, tags: [PyObject.of({ name: 'core' }, 'core', 'Tag')] }, 'r1', 'Device');

describe('a model instance in a template', () => {
  test('when an object or a related object is printed, then it prints as its str(), and its attributes read as a dict\'s keys', async () => {
    expect(await renderJinja('{{ d }} at {{ d.site }} ({{ d.site.slug }}, #{{ d.site.id }}): {{ d.status }}', { d: device })).toBe('r1 at DC1 (dc1, #7): active');
  });

  test('when an object is compared, tested or filtered, then it behaves as its text and its attributes', async () => {
    expect(await renderJinja("{% if d.site == 'DC1' %}same{% else %}other{% endif %}", { d: device })).toBe('same');
    expect(await renderJinja('{% if d.tenant %}T{% else %}none{% endif %}/{% if d.site %}S{% endif %}', { d: device })).toBe('none/S');
    expect(await renderJinja("{{ qs | map(attribute='name') | join(', ') }}|{{ qs | join(';') }}|{{ d.site | upper }}", { qs: [device, device], d: device })).toBe('r1, r1|r1;r1|DC1');
    expect(await renderJinja('{% for t in d.tags %}{{ t }}{% endfor %}', { d: device })).toBe('core');
  });

  test('when an object sits in a list that is printed, then it shows as Python repr() of a model instance', () => {
    expect(pyStr([site])).toBe('[<Site: DC1>]');
    expect(pyStr(site)).toBe('DC1');
  });
});
