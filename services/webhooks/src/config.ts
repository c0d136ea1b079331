import { Joi, baseConfigSchema, type BaseConfig } from '@inventory/core';
import { DEFAULT_RETRY_SCHEDULE } from './delivery/topology';

/** The dispatcher's settings (docs/settings.md). */
export interface DispatchSettings {
  /** Seconds before each retry, comma-separated: `10,60,300,1800,7200`. */
  WEBHOOK_RETRY_SCHEDULE: string;
  /** Days a delivery stays in the log (0: forever). */
  WEBHOOK_DELIVERY_RETENTION: number;
  /** Attempts in flight at once per dispatcher process. */
  WEBHOOK_CONCURRENCY: number;
  /** Seconds an attempt may take before it counts as failed. */
  WEBHOOK_TIMEOUT: number;
}

/** What the webhooks service reads from the environment (once, at start, with readConfig). */
export interface WebhooksConfig extends BaseConfig, DispatchSettings {}

export const DISPATCH_DEFAULTS: DispatchSettings = {
  WEBHOOK_RETRY_SCHEDULE: DEFAULT_RETRY_SCHEDULE.join(','),
  WEBHOOK_DELIVERY_RETENTION: 30,
  WEBHOOK_CONCURRENCY: 64,
  WEBHOOK_TIMEOUT: 10,
};

export const webhooksConfig = Joi.object<WebhooksConfig>({
  ...baseConfigSchema,
  WEBHOOK_RETRY_SCHEDULE: Joi.string()
    .pattern(/^\s*\d+(\.\d+)?\s*(,\s*\d+(\.\d+)?\s*)*$/)
    .message('"WEBHOOK_RETRY_SCHEDULE" must be seconds separated by commas, such as 10,60,300')
    .default(DISPATCH_DEFAULTS.WEBHOOK_RETRY_SCHEDULE),
  WEBHOOK_DELIVERY_RETENTION: Joi.number().integer().min(0).default(DISPATCH_DEFAULTS.WEBHOOK_DELIVERY_RETENTION),
  WEBHOOK_CONCURRENCY: Joi.number().integer().min(1).max(1000).default(DISPATCH_DEFAULTS.WEBHOOK_CONCURRENCY),
  WEBHOOK_TIMEOUT: Joi.number().min(0.1).max(300).default(DISPATCH_DEFAULTS.WEBHOOK_TIMEOUT),
});

/** The settings of a config that may lack them (a plain BaseConfig, as the test kit builds): defaults then. */
export function dispatchSettings(config: BaseConfig & Partial<DispatchSettings>): DispatchSettings {
  return { ...DISPATCH_DEFAULTS, ...Object.fromEntries(Object.entries(config).filter(([k, v]) => k in DISPATCH_DEFAULTS && v !== undefined)) };
}

/** Milliseconds before each retry, from WEBHOOK_RETRY_SCHEDULE; steps that are not positive are left out. */
export function retrySchedule(value: string | undefined): number[] {
  const steps = (value ?? '').split(',').map((s) => Number(s.trim())).filter((n) => Number.isFinite(n) && n > 0);
  return (steps.length ? steps : DEFAULT_RETRY_SCHEDULE).map((s) => Math.round(s * 1000));
}
