import type { Express, Response } from 'express';
import { NotAuthenticated } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { identityOf, isPlainObject, mountRoute, notADict, type ServiceContext } from '@inventory/rest';
import { DASHBOARD_TABLE } from './models';

type Json = Record<string, unknown>;

/**
 * NetBox 3.7's `/api/extras/dashboard/` (DashboardView): the caller's own
 * dashboard, `{layout, config}` (gridstack positions and each widget's
 * settings, stored as given). GET answers an empty one until it is saved;
 * PUT and PATCH store the keys given; DELETE forgets it. Served by users
 * (a user's own data, removed with the user); the gateway routes the path
 * here.
 */
export function mountDashboard(app: Express, ctx: ServiceContext): void {
  const table = raw(ctx.db.table(DASHBOARD_TABLE));
  const userOf = (res: Response): number => {
    const user = identityOf(res).user;
    if (!user) throw new NotAuthenticated();
    return user.id;
  };
  const read = async (userId: number): Promise<Json> => {
    const [row] = await ctx.db.query(sql`SELECT layout, config FROM ${table} WHERE user_id = ${userId}`);
    return { layout: row?.layout ?? [], config: row?.config ?? {} };
  };
  const schema = { type: 'object', properties: { layout: {}, config: {} } };
  const save = async (req: { body?: unknown }, res: Response) => {
    const userId = userOf(res);
    const body: unknown = req.body ?? {};
    if (!isPlainObject(body)) throw notADict(body);
    const layout = 'layout' in body ? JSON.stringify(body.layout ?? null) : null;
    const config = 'config' in body ? JSON.stringify(body.config ?? null) : null;
    await ctx.db.query(sql`
      INSERT INTO ${table} (user_id, layout, config) VALUES (${userId}, COALESCE(${layout}::jsonb, '[]'::jsonb), COALESCE(${config}::jsonb, '{}'::jsonb))
      ON CONFLICT (user_id) DO UPDATE SET layout = COALESCE(${layout}::jsonb, ${table}.layout), config = COALESCE(${config}::jsonb, ${table}.config)`);
    res.json(await read(userId));
  };
  mountRoute(app, {
    path: '/api/extras/dashboard/',
    name: 'Dashboard',
    operations: {
      get: { summary: "The caller's dashboard: its layout and its widgets' config.", response: schema, handler: async (_req, res) => res.json(await read(userOf(res))) },
      put: { summary: "Stores the caller's dashboard (the keys given).", request: schema, response: schema, handler: save },
      patch: { summary: "Stores the caller's dashboard (the keys given).", request: schema, response: schema, handler: save },
      delete: {
        summary: "Forgets the caller's dashboard.",
        status: 204,
        response: {},
        handler: async (_req, res) => {
          await ctx.db.query(sql`DELETE FROM ${table} WHERE user_id = ${userOf(res)}`);
          res.status(204).end();
        },
      },
    },
  });
}
