import type { ChangeEvent } from '@inventory/events';
import { modelName, pythonIsoTimestamp, webhookContext, type WebhookContext } from '../src/dispatch/context';
import { jinjaToLiquid } from '@inventory/templates';
import { CONTEXT_KEYS, defaultBody, renderHeaders, renderTemplate, TemplateError, validateTemplate } from '../src/dispatch/render';

const event: ChangeEvent = {
  id: '6f1c2a7e-1111-4222-8333-944445555666',
  event: 'updated',
  model: 'tenancy.tenant',
  object_id: 3,
  version: 2,
  timestamp: '2024-05-06T12:43:46.123Z',
  username: 'admin',
  request_id: 'b5e6c0a4-0000-4000-8000-000000000001',
  data: {
    id: 3,
    url: '/api/tenancy/tenants/3/',
    name: 'Acme <Corp> & Sons',
    slug: 'acme',
    status: { value: 'active', label: 'Active' },
    description: '',
    group: null,
    is_pool: true,
    comments: '  padded  ',
    tags: [
      { id: 1, name: 'gold', slug: 'gold' },
      { id: 2, name: 'Vip', slug: 'vip' },
    ],
    custom_fields: { city: 'Zürich' },
  },
  snapshots: { prechange: { name: 'Acme' }, postchange: { name: 'Acme <Corp> & Sons' } },
};
const context = webhookContext(event);
const render = (template: string) => renderTemplate(template, context);

describe('webhook context', () => {
  test('when built from a change event, then the keys and values are NetBox\'s (lower-case model name, +00:00 timestamp)', () => {
    expect(Object.keys(context)).toEqual(['event', 'timestamp', 'model', 'username', 'request_id', 'data', 'snapshots']);
    expect(context).toMatchObject({
      event: 'updated',
      timestamp: '2024-05-06T12:43:46.123000+00:00',
      model: 'tenant',
      username: 'admin',
      request_id: event.request_id,
      data: event.data,
      snapshots: event.snapshots,
    });
  });

  test('when the model has an app label, then only the model name is kept', () => {
    expect(modelName('ipam.ipaddress')).toBe('ipaddress');
    expect(modelName('dcim.Site')).toBe('site');
  });

  test('when the timestamp has microseconds or no fraction, then Python isoformat keeps six digits', () => {
    expect(pythonIsoTimestamp('2024-05-06T12:43:46.123456Z')).toBe('2024-05-06T12:43:46.123456+00:00');
    expect(pythonIsoTimestamp('2024-05-06T12:43:46Z')).toBe('2024-05-06T12:43:46.000000+00:00');
    expect(pythonIsoTimestamp('2024-05-06T14:43:46.5+02:00')).toBe('2024-05-06T12:43:46.500000+00:00');
  });
});

describe('Jinja templates', () => {
  test.each([
    ['{{ data.name }}', 'Acme <Corp> & Sons'],
    ["{{ data['slug'] }}", 'acme'],
    ['{{ data["slug"] }}', 'acme'],
    ['{{ model }}/{{ event }}', 'tenant/updated'],
    ['{{ data.slug | upper }}', 'ACME'],
    ['{{ data.tags[1].name | lower }}', 'vip'],
    ["{{ data.nosuch | default('none given') }}", 'none given'],
    ['{{ data.nosuch | default("x") }}', 'x'],
    ["{{ data.description | default('x') }}", ''],
    ["{{ data.description | default('x', true) }}", 'x'],
    ["{{ data.description | d('y', boolean=true) }}", 'y'],
    ['{{ data.tags | length }}', '2'],
    ['{{ data.name | length }}', '18'],
    ["{{ data.tags | map(attribute='name') | join(', ') }}", 'gold, Vip'],
    ["{{ data.tags | join(', ', attribute='slug') }}", 'gold, vip'],
    ["{{ data.slug | replace('c', 'k') }}", 'akme'],
    ["{{ 'a-a-a' | replace('a','b', 2) }}", 'b-b-a'],
    ["{{ 'hello wORLD' | title }}", 'Hello World'],
    ['{{ data.comments | trim }}', 'padded'],
    ["{% if data.status.value == 'active' %}on{% endif %}", 'on'],
    ["{% if data.status.value == 'planned' %}on{% elif data.is_pool %}pool{% else %}off{% endif %}", 'pool'],
    ['{% if data.group == None %}no group{% endif %}', 'no group'],
    ['{% if data.description %}has{% else %}empty{% endif %}', 'empty'],
    ['{% if (data.is_pool or data.group) and not data.description %}yes{% endif %}', 'yes'],
    ['{% for t in data.tags %}{{ t.name }}{% endfor %}', 'goldVip'],
    ['{% for t in data.tags %}{{ loop.index }}:{{ t.slug }}{% if not loop.last %},{% endif %}{% endfor %}', '1:gold,2:vip'],
    ["{% set greeting = 'hi ' %}{{ greeting }}{{ username }}", 'hi admin'],
    ['a{# a comment #}b', 'ab'],
    ['{% raw %}{{ data.name }}{% endraw %}', '{{ data.name }}'],
  ])('when rendering %s, then the output is %j', async (template, expected) => {
    expect(await render(template)).toBe(expected);
  });

  test('when a value is printed, then it looks as Python prints it (None, True, lists, dicts)', async () => {
    expect(await render('{{ data.group }} {{ data.is_pool }} {{ data.status }}')).toBe("None True {'value': 'active', 'label': 'Active'}");
    expect(await render('{{ data.tags | map(attribute="slug") | list }}')).toBe("['gold', 'vip']");
    const quirky = { data: { list: ["it's", 'a\nb', 'say "hi"', 1.5, false, null] } };
    expect(await renderTemplate('{{ data.list }}', quirky)).toBe(`["it's", 'a\\nb', 'say "hi"', 1.5, False, None]`);
  });

  test('when a value goes through tojson, then the JSON parses back to the same value, keys sorted and <>&\' escaped', async () => {
    const out = await render('{{ data | tojson }}');
    expect(JSON.parse(out)).toEqual(event.data);
    expect(out).toContain('"name": "Acme \\u003cCorp\\u003e \\u0026 Sons"');
    expect(out).toContain('"city": "Z\\u00fcrich"');
    expect(out.indexOf('"comments"')).toBeLessThan(out.indexOf('"custom_fields"'));
    expect(JSON.parse(await render('{{ snapshots | tojson }}'))).toEqual(event.snapshots);
    expect(await render('{{ data.status | tojson(2) }}')).toBe('{\n  "label": "Active",\n  "value": "active"\n}');
  });

  test('when a body template builds JSON, then it is output verbatim (no HTML escaping)', async () => {
    const body = await render('{"name": {{ data.name | tojson }}, "raw": "{{ data.slug }}<&>", "who": "{{ username }}"}\n');
    expect(JSON.parse(body)).toEqual({ name: 'Acme <Corp> & Sons', raw: 'acme<&>', who: 'admin' });
    expect(body.endsWith('}')).toBe(true);
  });

  test('when the template has CRLF line ends and a trailing newline, then Jinja turns them into LF and drops the last one', async () => {
    expect(await render('a\r\nb\r\n')).toBe('a\nb');
  });

  test('when the Jinja filter-call syntax is translated, then liquid arguments come out', () => {
    expect(jinjaToLiquid("{{ x | default('a') | join(', ', attribute = 'n') | upper() }}")).toBe("{{ x | default: 'a' | join: ', ', attribute: 'n' | upper }}");
    expect(jinjaToLiquid("{{ 'a | b(c)' }}")).toBe("{{ 'a | b(c)' }}");
    expect(jinjaToLiquid('{% if data.True == None %}{% elif x %}{% endif %}')).toBe('{% if data.True == nil %}{% elsif x %}{% endif %}');
  });

  test.each([
    ['{{ data.name | nosuchfilter }}', /nosuchfilter/],
    ['{% if data.name %}unclosed', /if/],
    ["{{ data.name | default('x' }}", /\)/],
    ['{{ data.name ', /data\.name/],
    ['{% frobnicate %}', /frobnicate/],
    ['a {# comment', /comment/],
  ])('when the template is bad (%s), then rendering throws a TemplateError and validation names the problem', async (template, problem) => {
    await expect(render(template)).rejects.toThrow(TemplateError);
    await expect(render(template)).rejects.toThrow(problem);
    expect(validateTemplate(template)).toMatch(problem);
  });

  test('when the template is good, then validation has no message', () => {
    expect(validateTemplate('https://hooks.example.com/{{ model }}/{{ data.id }}/')).toBeNull();
    expect(validateTemplate('')).toBeNull();
  });

  test('when a template error is raised, then it carries the template', async () => {
    const error = await render('{{ x | nope }}').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TemplateError);
    expect((error as TemplateError).template).toBe('{{ x | nope }}');
  });
});

describe('additional headers', () => {
  test('when additional_headers has Name: Value lines with templates, then each is rendered and trimmed, blank lines skipped', async () => {
    const headers = await renderHeaders('X-Model: {{ model }}\n\n  X-Object : {{ data.id }}  \r\nAuthorization: Bearer a:b\n', context);
    expect(headers).toEqual({ 'X-Model': 'tenant', 'X-Object': '3', Authorization: 'Bearer a:b' });
  });

  test('when a line spans a Jinja block, then the block decides the lines', async () => {
    const headers = await renderHeaders("{% for t in data.tags %}X-Tag-{{ loop.index }}: {{ t.slug }}\n{% endfor %}", context);
    expect(headers).toEqual({ 'X-Tag-1': 'gold', 'X-Tag-2': 'vip' });
  });

  test('when additional_headers is empty, then there are no headers', async () => {
    expect(await renderHeaders('', context)).toEqual({});
  });

  test('when a line has no colon or a bad name, then it is a TemplateError', async () => {
    await expect(renderHeaders('X-Good: 1\nnot a header', context)).rejects.toThrow(TemplateError);
    await expect(renderHeaders('Bad Name: 1', context)).rejects.toThrow(/Invalid header name/);
  });
});

describe('default body', () => {
  test('when there is no body template, then the body is the context with NetBox\'s key order, Python separators and ASCII escapes', () => {
    const body = defaultBody(context);
    expect(Object.keys(JSON.parse(body))).toEqual([...CONTEXT_KEYS]);
    expect(JSON.parse(body)).toEqual(context);
    expect(body.startsWith('{"event": "updated", "timestamp": "2024-05-06T12:43:46.123000+00:00", "model": "tenant", "username": "admin", "request_id": ')).toBe(true);
    expect(body).toContain('"custom_fields": {"city": "Z\\u00fcrich"}');
    expect(body).toContain('"snapshots": {"prechange": {"name": "Acme"}, "postchange": {"name": "Acme <Corp> & Sons"}}}');
  });

  test('when the context keys come in another order, then the body still has NetBox\'s order', () => {
    const shuffled = { snapshots: context.snapshots, data: 1, request_id: 'r', username: 'u', model: 'm', timestamp: 't', event: 'deleted' } as WebhookContext;
    expect(defaultBody(shuffled)).toBe(
      '{"event": "deleted", "timestamp": "t", "model": "m", "username": "u", "request_id": "r", "data": 1, "snapshots": {"prechange": {"name": "Acme"}, "postchange": {"name": "Acme <Corp> & Sons"}}}',
    );
  });
});
