import type { Request, Response } from 'express';
import { NotFound, NotAuthenticated, PermissionDenied } from '@inventory/core';
import { type Action, type Identity, authorize } from '@inventory/auth';
import { type Sql, and } from '@inventory/filtering';
import { constraintSql } from './constraints';
import type { FieldSelection } from './field-selection';
import type { ModelDef, ServiceContext } from '../model';
import type { Mode } from './serialize';

/** What the request reads once and every handler needs. */

export function identityOf(res: Response): Identity {
  return res.locals.identity as Identity;
}

/** Model-level permission for the request, or a 403 with NetBox's text; the scope the caller may touch. */
export function requirePermission(ctx: ServiceContext, model: ModelDef, identity: Identity, action: Action): Sql {
  if (action !== 'view' && identity.token && !identity.token.write_enabled) throw new PermissionDenied();
  const auth = authorize(identity, model.label, action, ctx.settings);
  if (!auth.allowed) throw identity.user ? new PermissionDenied() : new NotAuthenticated();
  const scope = constraintSql(ctx, model, auth.constraints);
  return model.visibleTo ? and([scope, model.visibleTo(identity)]) : scope;
}

/** `brief` with any non-empty value, as NetBox (quirk Q1). */
export function wantsBrief(params: URLSearchParams): boolean {
  const v = params.get('brief');
  return v !== null && v !== '';
}

/** The representation a read asks for: a field selection reads from the full one, else `brief` or full. */
export function modeOf(params: URLSearchParams, select: FieldSelection | null): Mode {
  return select ? 'full' : wantsBrief(params) ? 'brief' : 'full';
}

/** A path id: digits that a bigint key can hold; anything else cannot exist (404). */
export function parseId(raw: unknown): number {
  const text = String(raw);
  if (!/^\d{1,16}$/.test(text) || !Number.isSafeInteger(Number(text))) throw new NotFound();
  return Number(text);
}

export function requestUrl(req: Request, base: string): URL {
  return new URL(req.originalUrl, base);
}

/** Parameters a list ignored, for X-Ignored-Parameters (percent-encoded: a header carries Latin-1 only). */
export function ignoredHeader(names: string[]): string {
  return names.map((n) => encodeURIComponent(n)).join(',');
}
