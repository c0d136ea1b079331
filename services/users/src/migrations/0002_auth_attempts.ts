import type { Migration } from '@inventory/rest';

/**
 * Frozen history: sign-in attempts for the rate limits (throttle.ts), one row
 * per limited key (a hash of the username or client address), counting
 * within a window that starts at the key's first attempt. Shared by every
 * replica. Never edit it; add a migration.
 */
export const authAttempts: Migration = {
  name: '0002_auth_attempts',
  up: async ({ qi, schema }) => {
    const t = `"${schema}"."auth_attempt"`;
    await qi.sequelize.query(`CREATE TABLE ${t} (
      scope varchar(16) NOT NULL,
      key char(64) NOT NULL,
      window_start timestamptz NOT NULL,
      count integer NOT NULL,
      PRIMARY KEY (scope, key)
    )`);
    await qi.sequelize.query(`CREATE INDEX "auth_attempt_window_start_idx" ON ${t} (window_start)`);
  },
};
