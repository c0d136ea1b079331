import type { Express, Request, Response } from 'express';
import { NotAuthenticated, NotFound, PermissionDenied, sendJson } from '@inventory/core';
import { authorize } from '@inventory/auth';
import { sql } from '@inventory/filtering';
import { baseUrl, identityOf, mountRoute, parseId, projectedModels, projection, type ServiceContext } from '@inventory/rest';
import { nestedNodes } from './cabled';
import { node, pathsThrough } from './paths';
import { pathsRoute } from './routes';

const LABEL = 'circuits.circuittermination';

/**
 * `GET /api/circuits/circuit-terminations/{id}/paths/` (§3.3): the cable
 * paths through a circuit's end are dcim's (stored with its cables), so dcim
 * answers it; the gateway routes that one path here. The termination must
 * exist (in dcim's projection of circuits' terminations) and be viewable:
 * a permission constrained by attributes is refused rather than evaluated
 * (the constraints are circuits' to apply).
 */
async function circuitTerminationPaths(ctx: ServiceContext, req: Request, res: Response): Promise<void> {
  const identity = identityOf(res);
  const auth = authorize(identity, LABEL, 'view', ctx.settings);
  if (!auth.allowed) throw identity.user ? new PermissionDenied() : new NotAuthenticated();
  const id = parseId(req.params.id);
  if (auth.constraints !== null || !projectedModels(ctx).has(LABEL)) throw new NotFound();
  const [known] = await ctx.db.query(sql`SELECT id FROM ${projection(ctx, LABEL)} WHERE id = ${id} AND NOT deleted`);
  if (!known) throw new NotFound();
  const base = baseUrl(req, ctx.settings.publicUrl);
  const found = await pathsThrough(ctx, ctx.db, [node(LABEL, id)]);
  const nested = await nestedNodes(ctx, found.flatMap((p) => p.path.flat()), base, ctx.db);
  sendJson(
    res,
    200,
    found.map((p) => ({
      id: p.id,
      path: p.path.map((hop) => hop.map((n) => nested.get(n)).filter(Boolean)),
      is_active: p.isActive,
      is_complete: p.isComplete,
      is_split: p.isSplit,
    })),
  );
}

export function mountCircuitPaths(app: Express, ctx: ServiceContext): void {
  mountRoute(app, pathsRoute('/api/circuits/circuit-terminations/:id/paths/', 'circuit termination', (req, res) => circuitTerminationPaths(ctx, req, res)));
}
