import type { GrantedPermission, Identity } from './identity';

export type Action = 'view' | 'add' | 'change' | 'delete';

export interface PermissionSettings {
  /** Model labels (`dcim.site`) or '*' whose view permission anyone has. */
  exemptViewPermissions: string[];
  loginRequired: boolean;
}

/** Models that `*` does not exempt (NetBox: only an explicit entry exempts them). */
const NEVER_EXEMPT_BY_STAR = new Set(['auth.group', 'auth.user', 'users.group', 'users.user', 'extras.configrevision', 'users.objectpermission', 'users.token']);

/** Every authenticated user may manage their own tokens and bookmarks (NetBox DEFAULT_PERMISSIONS). */
const DEFAULT_PERMISSIONS: GrantedPermission[] = [
  { object_types: ['users.token'], actions: ['view', 'add', 'change', 'delete'], constraints: { user: '$user' } },
  { object_types: ['extras.bookmark'], actions: ['view', 'add', 'change', 'delete'], constraints: { user: '$user' } },
];

export function parseExemptList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Staff or superuser, and active: who may open the admin pages (/admin/...). */
export function isStaff(identity: Identity): boolean {
  const user = identity.user;
  return !!user && user.is_active && (user.is_staff || user.is_superuser);
}

export function isExemptView(contentType: string, settings: PermissionSettings): boolean {
  const list = settings.exemptViewPermissions;
  if (list.includes(contentType)) return true;
  return list.includes('*') && !NEVER_EXEMPT_BY_STAR.has(contentType);
}

/**
 * What an identity may do with a model.
 * - allowed=false: no permission at all (403).
 * - constraints=null: unrestricted.
 * - constraints=[...]: OR of constraint sets (each an AND of lookups), `$user` already substituted.
 */
export interface Authorization {
  allowed: boolean;
  constraints: Record<string, unknown>[] | null;
}

export function authorize(identity: Identity, contentType: string, action: Action, settings: PermissionSettings): Authorization {
  const user = identity.user;
  if (user?.is_superuser && user.is_active) return { allowed: true, constraints: null };
  if (action === 'view' && isExemptView(contentType, settings) && (user || !settings.loginRequired)) {
    return { allowed: true, constraints: null };
  }
  if (!user || !user.is_active) return { allowed: false, constraints: null };
  const sets: Record<string, unknown>[] = [];
  let matched = false;
  for (const perm of [...identity.permissions, ...DEFAULT_PERMISSIONS]) {
    if (!perm.object_types.includes(contentType) || !perm.actions.includes(action)) continue;
    matched = true;
    const c = perm.constraints;
    const list = c === null || c === undefined ? [] : Array.isArray(c) ? c : [c];
    // null, {} or an empty set anywhere in the union means unrestricted
    if (list.length === 0 || list.some((s) => !s || Object.keys(s).length === 0)) {
      return { allowed: true, constraints: null };
    }
    for (const set of list) sets.push(substituteUser(set, user.id));
  }
  return matched ? { allowed: true, constraints: sets } : { allowed: false, constraints: null };
}

function substituteUser(set: Record<string, unknown>, userId: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(set)) {
    out[k] = v === '$user' ? userId : Array.isArray(v) ? v.map((x) => (x === '$user' ? userId : x)) : v;
  }
  return out;
}

export function actionForMethod(method: string): Action | null {
  switch (method.toUpperCase()) {
    case 'GET':
    case 'HEAD':
      return 'view';
    case 'POST':
      return 'add';
    case 'PUT':
    case 'PATCH':
      return 'change';
    case 'DELETE':
      return 'delete';
    default:
      return null;
  }
}
