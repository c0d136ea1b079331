import { Joi, baseConfigSchema, type BaseConfig } from '@inventory/core';

/** What the extras service reads from the environment (once, at start, with readConfig). */
export interface ExtrasConfig extends BaseConfig {
  /** Days object changes are kept (NetBox's CHANGELOG_RETENTION); 0 keeps them forever. */
  CHANGELOG_RETENTION: number;
}

export const CHANGELOG_RETENTION_DEFAULT = 90;

export const extrasConfig = Joi.object<ExtrasConfig>({
  ...baseConfigSchema,
  CHANGELOG_RETENTION: Joi.number().integer().min(0).default(CHANGELOG_RETENTION_DEFAULT),
});

/** The retention of a config that may lack it (a plain BaseConfig, as the test kit builds): the default then. */
export function changelogRetention(config: BaseConfig & Partial<Pick<ExtrasConfig, 'CHANGELOG_RETENTION'>>): number {
  const v = config.CHANGELOG_RETENTION;
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : CHANGELOG_RETENTION_DEFAULT;
}
