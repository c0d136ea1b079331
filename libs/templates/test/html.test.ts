import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { htmlTemplates } from '@inventory/templates';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

describe('our HTML pages on liquid (htmlTemplates)', () => {
  let root: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'html-templates-'));
    const files: Record<string, string> = {
      'page.liquid': '<p title="{{ title }}">{{ text }}|{{ html | raw }}|{{ missing }}|{{ count }}</p>\n',
      'frame.liquid': '<main>\n{% block main %}{% endblock -%}\n</main>\n',
      'child.liquid': "{% layout 'frame' -%}\n{% block main -%}\n  <h1>{{ title }}</h1>\n{% if note -%}\n  <p>{{ note }}</p>\n{% endif -%}\n{% endblock -%}\n",
      'inline.liquid': "<nav>{% render 'who', name: name %}</nav>\n",
      'who.liquid': '<b>{{ name }}</b> <i>{{ field }}</i>{% # shown inside a line -%}\n',
    };
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, name), text);
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  test('when values hold markup, then every output is escaped as the given escape does it, and only `raw` output is not', () => {
    const render = htmlTemplates(root, { escape });
    const hostile = `<script>alert("x")</script> & 'q'`;
    expect(render('page', { title: hostile, text: hostile, html: '<a href="/x">x</a>', count: 0 })).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;|<a href="/x">x</a>||0</p>\n',
    );
  });

  test('when a tag stands alone on its line with a trim mark, then the line leaves nothing and the next keeps its indent', () => {
    const render = htmlTemplates(root, { escape });
    expect(render('child', { title: 'T', note: 'n' })).toBe('<main>\n  <h1>T</h1>\n  <p>n</p>\n</main>\n');
    expect(render('child', { title: 'T', note: '' })).toBe('<main>\n  <h1>T</h1>\n</main>\n');
  });

  test('when a partial is shown inside a line, then it sees the globals and its trim mark keeps its line end out', () => {
    const render = htmlTemplates(root, { escape, globals: { field: 'csrf"' } });
    expect(render('inline', { name: '<me>' })).toBe('<nav><b>&lt;me&gt;</b> <i>csrf&quot;</i></nav>\n');
  });

  test('when a template has been rendered, then later renders use it as parsed then (the file is not read again)', () => {
    const render = htmlTemplates(root, { escape });
    const file = path.join(root, 'page.liquid');
    const before = fs.readFileSync(file, 'utf8');
    expect(render('page', { text: 'a' })).toBe('<p title="">a|||</p>\n');
    fs.writeFileSync(file, 'changed {{ text }}\n');
    try {
      expect(render('page', { text: 'b' })).toBe('<p title="">b|||</p>\n');
      // another engine (another process) reads the file as it is now
      expect(htmlTemplates(root, { escape })('page', { text: 'c' })).toBe('changed c\n');
    } finally {
      fs.writeFileSync(file, before);
    }
  });

  test('when a template is missing or uses an unknown filter, then rendering throws', () => {
    const render = htmlTemplates(root, { escape });
    expect(() => render('nosuch', {})).toThrow(/Failed to lookup/);
    fs.writeFileSync(path.join(root, 'bad.liquid'), '{{ x | nosuchfilter }}');
    expect(() => render('bad', { x: 1 })).toThrow(/undefined filter: nosuchfilter/);
  });
});
