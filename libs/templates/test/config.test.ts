import { renderJinja, TemplateRenderError } from '@inventory/templates';

const device = { name: 'sw1', site: { name: 'Site 1', slug: 'site-1' }, tags: [{ name: 'core' }, { name: 'edge' }], serial: '' };

async function errorOf(code: string, context: Record<string, unknown> = {}, params?: unknown): Promise<TemplateRenderError> {
  try {
    await renderJinja(code, context, params);
  } catch (err) {
    if (err instanceof TemplateRenderError) return err;
    throw err;
  }
  throw new Error('rendered without an error');
}

describe('config templates in Jinja syntax', () => {
  test('when a template uses attributes, loops, conditions, set and filters, then it renders as Jinja would', async () => {
    const code = [
      'hostname {{ device.name | upper }}',
      '{# a comment #}',
      '{% set domain = "example.com" %}',
      'domain {{ domain }}',
      '{% for server in ntp_servers %}ntp server {{ server }}{% if not loop.last %};{% endif %}{% endfor %}',
      '{% if device.serial %}serial {{ device.serial }}{% elif device.site.slug == "site-1" %}site {{ device.site.name | lower }}{% else %}none{% endif %}',
      'tags {{ device.tags | map(attribute="name") | join(", ") }} ({{ device.tags | length }})',
      'missing [{{ nothing | default("n/a") }}] [{{ nothing }}]',
      'python {{ flag }} {{ unset_value }} {{ list }}',
      '',
    ].join('\n');
    const out = await renderJinja(code, { device, ntp_servers: ['10.0.0.1', '10.0.0.2'], flag: true, unset_value: null, list: ['a', 1] });
    expect(out.split('\n')).toEqual([
      'hostname SW1',
      '',
      '',
      'domain example.com',
      'ntp server 10.0.0.1;ntp server 10.0.0.2',
      'site site 1',
      'tags core, edge (2)',
      'missing [n/a] []',
      "python True None ['a', 1]",
    ]);
  });

  test('when environment parameters are given, then trim_blocks, lstrip_blocks, keep_trailing_newline and StrictUndefined apply', async () => {
    const code = '{% for i in items %}\n  {% if i %}\nx{{ i }}\n  {% endif %}\n{% endfor %}\n';
    expect(await renderJinja(code, { items: [1, 2] })).toBe('\n  \nx1\n  \n\n  \nx2\n  \n');
    expect(await renderJinja(code, { items: [1, 2] }, { trim_blocks: true, lstrip_blocks: true })).toBe('x1\nx2\n');
    expect(await renderJinja('a\n', {}, { keep_trailing_newline: true })).toBe('a\n');
    expect(await renderJinja('a\n', {})).toBe('a');
    expect(await renderJinja('[{{ nope }}]', {}, { undefined: 'jinja2.Undefined' })).toBe('[]');
    const strict = await errorOf('line one\n[{{ nope }}]', {}, { undefined: 'jinja2.StrictUndefined' });
    expect(strict.line).toBe(2);
    expect(strict.message).toMatch(/nope/);
  });

  test('when a template is malformed or names an unknown filter, then the error says so and on which line', async () => {
    const unclosed = await errorOf('ok\n{% if x %}\nno end');
    expect(unclosed.message).toMatch(/not closed|endif/i);
    const filter = await errorOf('a\nb\n{{ x | frobnicate }}', { x: 1 });
    expect(filter.line).toBe(3);
    expect(filter.message).toMatch(/frobnicate/);
  });
});
