import { RenderPool, renderJinja, renderTemplate, TemplateLimitError, TemplateRenderError } from '../src';

/** Event-loop turns while `work` runs: a render on a worker leaves the loop free. */
async function turnsDuring<T>(work: Promise<T>): Promise<{ value: T | undefined; error: unknown; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setTimeout(tick, 10);
  };
  setTimeout(tick, 10);
  try {
    return { value: await work, error: undefined, turns };
  } catch (error) {
    return { value: undefined, error, turns };
  } finally {
    done = true;
  }
}

const SPIN = '{% for i in (1..100000000) %}{% endfor %}';
const limits = { timeMs: 600, outputChars: 1000 };

describe('template workers', () => {
  test('when a config template renders on a worker, then the output is what rendering in the process gives', async () => {
    const code = '{% for n in ntp %}ntp server {{ n | upper }}\n{% endfor %}{{ device.name }} {{ missing }}';
    const context = { ntp: ['a', 'b'], device: { name: 'r1' } };
    expect(await renderTemplate({ kind: 'jinja', code, context }, limits)).toBe(await renderJinja(code, context));
  });

  test('when an export template reads its queryset, then objects print as their display and related objects as theirs, choices as their value', async () => {
    const rows = [
      { id: 1, display: 'r1', name: 'r1', status: { value: 'active', label: 'Active' }, site: { id: 7, url: 'http://x/api/dcim/sites/7/', display: 'DC1', slug: 'dc1' }, tags: [{ id: 3, display: 'core', name: 'core' }] },
      { id: 2, display: 'r2', name: 'r2', status: { value: 'planned', label: 'Planned' }, site: { id: 7, url: 'http://x/api/dcim/sites/7/', display: 'DC1', slug: 'dc1' }, tags: [] },
    ];
    const shape = { status: { kind: 'choice' }, site: { kind: 'related', cls: 'Site' } } as const;
    const code = '{% for d in queryset %}{{ d }}:{{ d.status }}@{{ d.site }}/{{ d.site.slug }}[{{ d.tags | join(",") }}];{% endfor %}';
    expect(await renderTemplate({ kind: 'export', code, objects: { rows, shape, cls: 'Device' } }, limits)).toBe('r1:active@DC1/dc1[core];r2:planned@DC1/dc1[];');
  });

  test('when a template loops past the time limit, then it fails with a limit error naming the limit, the event loop turned meanwhile, and the next render works', async () => {
    const { error, turns } = await turnsDuring(renderTemplate({ kind: 'jinja', code: SPIN, context: {} }, limits));
    expect(error).toBeInstanceOf(TemplateLimitError);
    expect((error as TemplateLimitError).limit).toBe('time');
    expect((error as Error).message).toBe('rendering took longer than the limit of 600 ms (TEMPLATE_TIME_LIMIT_MS)');
    expect(turns).toBeGreaterThan(5);
    expect(await renderTemplate({ kind: 'jinja', code: '{{ 1 }}', context: {} }, limits)).toBe('1');
  });

  test('when a template writes more than the output limit, then it fails with a limit error naming the limit', async () => {
    const err = await renderTemplate({ kind: 'jinja', code: '{% for i in (1..200) %}0123456789{% endfor %}', context: {} }, limits).catch((e) => e);
    expect(err).toBeInstanceOf(TemplateLimitError);
    expect(err.limit).toBe('size');
    expect(err.message).toBe('the output is longer than the limit of 1000 characters (TEMPLATE_OUTPUT_LIMIT)');
  });

  test('when a template is wrong, then the error names the line as in the process', async () => {
    const err = await renderTemplate({ kind: 'jinja', code: 'ok\n{{ x | nosuchfilter }}', context: {} }, limits).catch((e) => e);
    expect(err).toBeInstanceOf(TemplateRenderError);
    expect(err.line).toBe(2);
  });

  test('when one worker spins, then a render on the other worker of the pool is answered before the spin ends', async () => {
    const pool = new RenderPool(2);
    try {
      let spinning = true;
      const spin = pool.render({ kind: 'jinja', code: SPIN, context: {} }, { timeMs: 1500, outputChars: 100 }).catch((e) => e).finally(() => (spinning = false));
      const quick = await pool.render({ kind: 'jinja', code: '{{ "quick" }}', context: {} }, limits);
      expect(quick).toEqual(expect.objectContaining({ ok: true, out: 'quick' }));
      expect(spinning).toBe(true);
      expect(await spin).toBeInstanceOf(TemplateLimitError);
    } finally {
      await pool.close();
    }
  });
});
