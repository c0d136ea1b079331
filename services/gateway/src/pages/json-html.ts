import { escapeHtml } from '@inventory/core';

/** An http(s) URL in text: up to a quote, a backslash (a JSON escape), an angle bracket or white space. */
const URL_IN_TEXT = /https?:\/\/[^\s"'<>\\]+/g;
/** Punctuation that ends a sentence rather than the URL in it (as Django's urlize trims it). */
const TRAILING = /[.,;:!?)\]]+$/;

/**
 * Text as HTML with every http(s) URL in it a link (DRF's browsable API
 * urlizes its output). Everything else is escaped; only http and https
 * become links, so a `javascript:` value stays text.
 */
export function linkify(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(URL_IN_TEXT)) {
    const url = m[0].replace(TRAILING, '');
    const start = m.index;
    out += escapeHtml(text.slice(last, start));
    out += `<a href="${escapeHtml(url)}" rel="nofollow">${escapeHtml(url)}</a>`;
    last = start + url.length;
  }
  return out + escapeHtml(text.slice(last));
}

/** A JSON value pretty-printed as the browsable API shows it (indent 4), escaped, its URLs links. */
export function jsonHtml(value: unknown): string {
  return linkify(JSON.stringify(value, null, 4) ?? '');
}

/** An http(s) URL (pagination links come from the service's answer: anything else is not followed). */
export function isHttpUrl(value: unknown): value is string {
  return typeof value === 'string' && /^https?:\/\/[^\s"'<>\\]+$/.test(value);
}
