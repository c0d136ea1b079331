import { runStatements, type Migration } from '@inventory/rest';

/** Frozen history (docs/decisions/005-frozen-migrations.md): each user's dashboard (NetBox 3.7's /api/extras/dashboard/). */
export const dashboards: Migration = {
  name: '0010_dashboards',
  up: ({ qi, schema }) =>
    runStatements(qi, [`CREATE TABLE "${schema}"."dashboard" (user_id bigint PRIMARY KEY, layout jsonb NOT NULL DEFAULT '[]'::jsonb, config jsonb NOT NULL DEFAULT '{}'::jsonb)`]),
};
