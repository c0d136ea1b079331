import { Joi, baseConfigSchema, type BaseConfig } from '@inventory/core';

/** Sign-in rate limits (password login and token provisioning); 0 disables a limit. */
export interface AuthRateLimits {
  /** Failed sign-ins per username within a window. */
  AUTH_RATE_LIMIT_USERNAME: number;
  /** Sign-in attempts (failed or not) per client address within a window. */
  AUTH_RATE_LIMIT_ADDRESS: number;
  /** Length of a window, from the first attempt it counts. */
  AUTH_RATE_LIMIT_WINDOW_SECONDS: number;
}

/** What the users service reads from the environment (once, at start, with readConfig). */
export interface UsersConfig extends BaseConfig, AuthRateLimits {}

export const AUTH_RATE_LIMIT_DEFAULTS: AuthRateLimits = {
  AUTH_RATE_LIMIT_USERNAME: 10,
  AUTH_RATE_LIMIT_ADDRESS: 60,
  AUTH_RATE_LIMIT_WINDOW_SECONDS: 60,
};

export const usersConfig = Joi.object<UsersConfig>({
  ...baseConfigSchema,
  AUTH_RATE_LIMIT_USERNAME: Joi.number().integer().min(0).default(AUTH_RATE_LIMIT_DEFAULTS.AUTH_RATE_LIMIT_USERNAME),
  AUTH_RATE_LIMIT_ADDRESS: Joi.number().integer().min(0).default(AUTH_RATE_LIMIT_DEFAULTS.AUTH_RATE_LIMIT_ADDRESS),
  AUTH_RATE_LIMIT_WINDOW_SECONDS: Joi.number().integer().min(1).max(86_400).default(AUTH_RATE_LIMIT_DEFAULTS.AUTH_RATE_LIMIT_WINDOW_SECONDS),
});

/** The limits of a config that may lack them (a plain BaseConfig, as the test kit builds): defaults then. */
export function authRateLimits(config: BaseConfig & Partial<AuthRateLimits>): AuthRateLimits {
  const pick = (name: keyof AuthRateLimits, min: number): number => {
    const v = config[name];
    return typeof v === 'number' && Number.isInteger(v) && v >= min ? v : AUTH_RATE_LIMIT_DEFAULTS[name];
  };
  return {
    AUTH_RATE_LIMIT_USERNAME: pick('AUTH_RATE_LIMIT_USERNAME', 0),
    AUTH_RATE_LIMIT_ADDRESS: pick('AUTH_RATE_LIMIT_ADDRESS', 0),
    AUTH_RATE_LIMIT_WINDOW_SECONDS: pick('AUTH_RATE_LIMIT_WINDOW_SECONDS', 1),
  };
}
