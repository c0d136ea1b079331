import { baseConfig } from '@inventory/core';

/** What the extras service reads from the environment: the base config (CHANGELOG_RETENTION is there, read by every service). */
export const extrasConfig = baseConfig;
