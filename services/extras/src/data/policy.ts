import * as path from 'node:path';
import type { DataSourceSettings } from '../config';

/**
 * What a data source may name (decision 029): checked when a source is
 * written and again when it is synced (the settings may have changed since).
 */

/** How a secret parameter reads (NetBox's CENSOR_TOKEN). */
export const CENSORED = '********';

/** The git parameters NetBox's backend takes. */
const GIT_PARAMETERS = ['branch', 'username', 'password'];

/** The URL's scheme, lower-cased ('' for a bare path). */
export function schemeOf(url: string): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url);
  return m ? m[1].toLowerCase() : '';
}

/** The folder a local source names: `file:///srv/x` or `/srv/x`, normalised; null when it is not an absolute path. */
export function localPathOf(url: string): string | null {
  let p = url;
  if (schemeOf(url) === 'file') {
    try {
      const u = new URL(url);
      if (u.host && u.host !== 'localhost') return null;
      p = decodeURIComponent(u.pathname);
    } catch {
      return null;
    }
  }
  if (!p || !path.isAbsolute(p) || p.includes('\0')) return null;
  return path.resolve(p);
}

/** Whether `p` is `root` or below it (both absolute and normalised). */
export function isBelow(p: string, root: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** Why a source's URL is refused, or null. */
export function checkSourceUrl(type: string, url: string, settings: DataSourceSettings): string | null {
  if (type === 'local') {
    const scheme = schemeOf(url);
    if (scheme !== 'file' && scheme !== '') return 'URLs for local sources must start with file:// (or specify no scheme)';
    if (!settings.localRoots.length) return 'Local data sources are disabled: no folder is allowed (set DATA_SOURCE_LOCAL_ROOTS).';
    const p = localPathOf(url);
    if (!p) return 'A local source must name an absolute path.';
    if (!settings.localRoots.some((r) => isBelow(p, r))) return `The path ${p} is not below a folder allowed by DATA_SOURCE_LOCAL_ROOTS.`;
    return null;
  }
  if (type === 'git') {
    const scheme = schemeOf(url);
    if (!scheme) return 'A git source needs a URL with a scheme (https://...).';
    if (!settings.gitSchemes.includes(scheme)) {
      return `The URL scheme "${scheme}" is not allowed for git sources (DATA_SOURCE_GIT_SCHEMES: ${settings.gitSchemes.join(', ') || 'none'}).`;
    }
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return 'Enter a valid URL.';
    }
    // the URL is shown to every reader: a secret belongs in the (write-only) password parameter
    if (parsed.password) return 'Give the password as the "password" parameter, not in the URL.';
    return null;
  }
  return null;
}

/** Why a source's parameters are refused, or null: a git source's are strings among branch, username and password. */
export function checkParameters(type: string, params: unknown): string | null {
  if (params === null || params === undefined) return null;
  if (typeof params !== 'object' || Array.isArray(params)) return 'Parameters must be a JSON object.';
  const entries = Object.entries(params as Record<string, unknown>);
  if (type === 'local') return entries.length ? 'Local sources take no parameters.' : null;
  for (const [k, v] of entries) {
    if (!GIT_PARAMETERS.includes(k)) return `Unknown parameter "${k}" (a git source takes ${GIT_PARAMETERS.join(', ')}).`;
    if (v !== null && typeof v !== 'string') return `The parameter "${k}" must be a string.`;
  }
  const branch = (params as Record<string, unknown>).branch;
  if (typeof branch === 'string' && (branch.startsWith('-') || /[\s\0~^:?*[\\]/.test(branch))) return `"${branch}" is not a valid branch name.`;
  return null;
}

/** Python's fnmatch.fnmatchcase: `*`, `?`, `[seq]` and `[!seq]`, case-sensitive, over the whole name. */
export function fnmatch(name: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) {
        re += '\\[';
        continue;
      }
      let set = pattern.slice(i + 1, end);
      i = end;
      const negate = set.startsWith('!');
      if (negate) set = set.slice(1);
      set = set.replace(/\\/g, '\\\\').replace(/\]/g, '\\]').replace(/\^/g, '\\^');
      re += negate ? `[^${set}]` : `[${set}]`;
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  try {
    return new RegExp(`^${re}$`, 's').test(name);
  } catch {
    return false;
  }
}

/** NetBox's DataSource._ignore: dot files, and any name an ignore rule (one a line) matches. */
export function ignored(name: string, rules: string): boolean {
  if (name.startsWith('.')) return true;
  return rules.split(/\r?\n/).some((rule) => rule !== '' && fnmatch(name, rule));
}
