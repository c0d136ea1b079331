import Joi from 'joi';

/**
 * Configuration is read from the environment once, at start, and validated
 * with joi. A wrong or missing value stops the process with a message that
 * names the variable.
 */
export class ConfigError extends Error {}

export function readConfig<T>(schema: Joi.ObjectSchema<T>, env: NodeJS.ProcessEnv = process.env): T {
  const { value, error } = schema.validate(env, {
    abortEarly: false,
    allowUnknown: true,
    stripUnknown: true,
    convert: true,
  });
  if (error) {
    const lines = error.details.map((d) => `  ${d.path.join('.')}: ${d.message.replace(/^"[^"]*" /, '')}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return value as T;
}

/** Stops the process with the config error's message (for main.ts files). */
export function readConfigOrExit<T>(schema: Joi.ObjectSchema<T>, env: NodeJS.ProcessEnv = process.env): T {
  try {
    return readConfig(schema, env);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
}

const bool = Joi.boolean().truthy('1', 'yes', 'on').falsy('0', 'no', 'off', '');

/** Variables every service reads. */
export const baseConfigSchema = {
  NODE_ENV: Joi.string().valid('development', 'production', 'test').default('development'),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  HOST: Joi.string().default('127.0.0.1'),
  PORT: Joi.number().integer().min(0).max(65535).default(0),
  DATABASE_URL: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }).required(),
  DATABASE_POOL_MAX: Joi.number().integer().min(1).default(10),
  INTERNAL_TOKEN_SECRET: Joi.string().min(16).required(),
  // an empty value is no value (compose and Kubernetes pass a variable left blank as "")
  PUBLIC_URL: Joi.string().uri({ scheme: ['http', 'https'] }).empty('').optional(),
  PAGINATE_COUNT: Joi.number().integer().min(1).default(50),
  MAX_PAGE_SIZE: Joi.number().integer().min(0).default(1000),
  STRICT_FILTERING: bool.default(false),
  LOGIN_REQUIRED: bool.default(false),
  EXEMPT_VIEW_PERMISSIONS: Joi.string().allow('').default(''),
  SERVICE_URLS: Joi.string().allow('').default(''),
  QUERY_COUNT_HEADER: bool.default(false),
  MAX_BODY_SIZE: Joi.number().integer().min(1024).default(10 * 1024 * 1024),
  AMQP_URL: Joi.string().uri({ scheme: ['amqp', 'amqps'] }).empty('').optional(),
  CHANGELOG_RETENTION: Joi.number().integer().min(0).default(90),
  HISTORY_RETENTION: Joi.number().integer().min(0).default(0),
  CONSISTENCY_WAIT_MS: Joi.number().integer().min(0).default(2000),
  TEMPLATE_TIME_LIMIT_MS: Joi.number().integer().min(1).default(2000),
  TEMPLATE_OUTPUT_LIMIT: Joi.number().integer().min(1).default(32 * 1024 * 1024),
  METRICS_TOKEN: Joi.string().min(16).empty('').optional(),
  SHUTDOWN_DELAY: Joi.number().min(0).default(0),
  SHUTDOWN_TIMEOUT: Joi.number().min(0).default(20),
};

export interface BaseConfig {
  NODE_ENV: string;
  LOG_LEVEL: string;
  HOST: string;
  PORT: number;
  DATABASE_URL: string;
  DATABASE_POOL_MAX: number;
  INTERNAL_TOKEN_SECRET: string;
  PUBLIC_URL?: string;
  PAGINATE_COUNT: number;
  MAX_PAGE_SIZE: number;
  STRICT_FILTERING: boolean;
  LOGIN_REQUIRED: boolean;
  EXEMPT_VIEW_PERMISSIONS: string;
  /** `name=url,name=url`: where the other services answer. */
  SERVICE_URLS: string;
  /** Report the SQL statements a request ran in X-Query-Count (tests and benchmarks). */
  QUERY_COUNT_HEADER: boolean;
  /** Largest request body accepted, in bytes (413 above). */
  MAX_BODY_SIZE: number;
  /** RabbitMQ: change events are relayed there (unset: they wait in the outbox). */
  AMQP_URL?: string;
  /**
   * Days changes are kept (NetBox's CHANGELOG_RETENTION; 0 keeps them forever):
   * extras' change log, and each service's sent outbox rows, which its
   * by-request filters read.
   */
  CHANGELOG_RETENTION: number;
  /**
   * Days every object's past versions are kept for `?as_of=` reads and diffs
   * (0, the default, keeps them all); older versions are pruned hourly and
   * `as_of` before the cut-off is a 400.
   */
  HISTORY_RETENTION: number;
  /**
   * Longest a write's answer waits for the other services that show its
   * objects to apply its events (ms); past it the answer names them in
   * `X-Consistency-Pending`. 0 answers at once (no cross-service guarantee).
   */
  CONSISTENCY_WAIT_MS: number;
  /** A user's template (export, config, webhook) renders on a worker for at most this long. */
  TEMPLATE_TIME_LIMIT_MS: number;
  /** …and writes at most this many characters. */
  TEMPLATE_OUTPUT_LIMIT: number;
  /** When set, /metrics wants `Authorization: Bearer <METRICS_TOKEN>`; unset, it is open (as NetBox's). */
  METRICS_TOKEN?: string;
  /** Seconds between readiness turning 503 at SIGTERM and the listener closing (for a load balancer to take the instance out). */
  SHUTDOWN_DELAY: number;
  /** Seconds requests in flight get to finish once the listener is closed, before their connections are cut. */
  SHUTDOWN_TIMEOUT: number;
}

/** The graceful shutdown a configuration asks for (`listen`'s options). */
export function shutdownOptions(config: Pick<BaseConfig, 'SHUTDOWN_DELAY' | 'SHUTDOWN_TIMEOUT'>): { delayMs: number; timeoutMs: number } {
  return { delayMs: (config.SHUTDOWN_DELAY ?? 0) * 1000, timeoutMs: (config.SHUTDOWN_TIMEOUT ?? 20) * 1000 };
}

export const baseConfig = Joi.object<BaseConfig>(baseConfigSchema);

export function parseServiceUrls(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq < 1) throw new ConfigError(`SERVICE_URLS: expected name=url, got "${part}"`);
    out[part.slice(0, eq)] = part.slice(eq + 1).replace(/\/$/, '');
  }
  return out;
}

export { Joi };
