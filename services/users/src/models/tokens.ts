import { randomBytes } from 'node:crypto';
import { PermissionDenied, ValidationError } from '@inventory/core';
import type { Identity } from '@inventory/auth';
import { sql, raw, or, type FilterDef } from '@inventory/filtering';
import { defineModel, f, type ModelDef } from '@inventory/rest';
import { formatNetwork, parseNetwork } from '@inventory/auth';
import { containsPattern } from './filters';

export const TOKEN_KEY_LENGTH = 40;

/** 40 lowercase hex characters from 20 random bytes (160 bits), as NetBox. */
export function generateKey(): string {
  return randomBytes(20).toString('hex');
}

/** `users.grant_token`: superusers, or an enabled permission with action `grant` on tokens. */
export function mayGrantTokens(identity: Identity): boolean {
  const u = identity.user;
  if (!u || !u.is_active) return false;
  if (u.is_superuser) return true;
  return identity.permissions.some((p) => p.object_types.includes('users.token') && p.actions.includes('grant'));
}

export const GRANT_DENIED = 'This user does not have permission to create tokens for other users.';

export const token: ModelDef = defineModel({
  label: 'users.token',
  endpoint: 'tokens',
  table: 'token',
  verboseName: 'token',
  fields: {
    user: f.fk('auth.user', 'CASCADE', { required: true, filterKey: 'username' }),
    created: f.datetime({ readOnly: true }),
    expires: f.datetime({ nullable: true }),
    last_used: f.datetime({ nullable: true, readOnly: true }),
    // blank or omitted: generated; a supplied key restores a previous token
    key: f.string(TOKEN_KEY_LENGTH, { minLength: TOKEN_KEY_LENGTH, unique: 'Token with this Key already exists.' }),
    write_enabled: f.boolean(true),
    description: f.description(),
    allowed_ips: f.array('string', { default: [], nullable: true }),
  },
  tags: false,
  customFields: false,
  timestamps: false,
  brief: ['key', 'write_enabled'],
  display: (r) => String(r.key),
  ordering: ['id'],
  filters: (ctx): FilterDef[] => [
    {
      kind: 'method',
      name: 'q',
      apply: (values) => {
        const text = values[values.length - 1]?.trim();
        if (!text) return undefined;
        const pattern = containsPattern(text);
        return or([
          sql`t.description ILIKE ${pattern}`,
          sql`t.user_id IN (SELECT u.id FROM ${raw(ctx.db.table('user'))} u WHERE u.username ILIKE ${pattern})`,
        ]);
      },
    },
  ],
  hooks: {
    validate: (data) => {
      const ips = data.allowed_ips;
      // a list field (DRF ListField): [] means no restriction, null is refused (the column allows it, the API does not)
      if (ips === null) throw ValidationError.field('allowed_ips', 'This field may not be null.');
      if (Array.isArray(ips)) {
        const bad = ips.find((v) => !parseNetwork(v));
        if (bad !== undefined) throw ValidationError.field('allowed_ips', `Invalid IP address format: ${String(bad)}`);
      }
    },
    beforeSave: (data, existing, { identity }) => {
      // a token for somebody else needs users.grant_token
      if (data.user_id !== undefined && Number(data.user_id) !== identity.user?.id && !mayGrantTokens(identity)) {
        throw new PermissionDenied(GRANT_DENIED);
      }
      if ((!existing && (data.key === undefined || data.key === null)) || data.key === '') data.key = generateKey();
      if (Array.isArray(data.allowed_ips)) data.allowed_ips = data.allowed_ips.map((v) => formatNetwork(parseNetwork(v)!));
    },
  },
});
