import type { Request } from 'express';

/**
 * The browsable API, reduced to what the seed asks: /api/ and the area roots
 * render as pages of links when a browser asks for HTML.
 */
export function wantsHtml(req: Request): boolean {
  const format = new URLSearchParams(req.originalUrl.split('?')[1] ?? '').get('format');
  if (format === 'json') return false;
  if (format === 'api') return true;
  const accept = req.headers.accept ?? '';
  return /\btext\/html\b/i.test(accept) && !/\bapplication\/json\b/i.test(accept);
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/**
 * A page listing `name → url` as links, with the JSON shown below as the
 * browsable API does. `userNav` is ready-made (escaped) HTML: who is signed in, or a login link.
 */
export function linksPage(title: string, links: Record<string, string>, base: string, userNav = ''): string {
  const items = Object.entries(links)
    .map(([name, url]) => `      <li><a href="${escapeHtml(url)}">${escapeHtml(name)}</a></li>`)
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>${escapeHtml(title)} | NetBox REST API</title>
    <style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}li{margin:.25rem 0}pre{background:#f5f5f5;padding:1rem;overflow:auto}nav.user{text-align:right}nav.user form{display:inline;margin:0}nav.user button{background:none;border:none;padding:0;color:#0645ad;cursor:pointer;font:inherit;text-decoration:underline}</style>
  </head>
  <body>
${userNav ? `    <nav class="user">${userNav}</nav>\n` : ''}    <h1>${escapeHtml(title)}</h1>
    <ul>
${items}
    </ul>
    <pre>${escapeHtml(JSON.stringify(links, null, 4))}</pre>
    <p><a href="${escapeHtml(base)}/api/docs/">API documentation</a></p>
  </body>
</html>
`;
}
