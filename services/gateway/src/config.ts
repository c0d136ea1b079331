import { Joi, baseConfigSchema, parseServiceUrls } from '@inventory/core';
import { TrustedProxies } from './forwarding/forwarded';
import { AllowedHosts } from './forwarding/allowed-hosts';

/** What the gateway reads from the environment (once, at start, with readConfig). */
export interface GatewayConfig {
  NODE_ENV: string;
  LOG_LEVEL: string;
  HOST: string;
  PORT: number;
  INTERNAL_TOKEN_SECRET: string;
  /** `name=url,...`: the services behind the gateway. */
  SERVICE_URLS: string;
  /** Absolute base of the public API; else taken from X-Forwarded-Host/Proto (from a trusted proxy) or Host. */
  PUBLIC_URL?: string;
  LOGIN_REQUIRED: boolean;
  /** Enforced by the services; accepted here so one environment file serves every process. */
  EXEMPT_VIEW_PERMISSIONS: string;
  /** RabbitMQ: token and session caches are dropped on the users service's change events (unset: on its HTTP calls). */
  AMQP_URL?: string;
  /** How long a successful token verification is reused (0 = ask users every time). */
  TOKEN_CACHE_SECONDS: number;
  /** Signs browser session cookies (and CSRF tokens); unset: derived from INTERNAL_TOKEN_SECRET under a fixed label. */
  SESSION_SECRET?: string;
  /** Largest request body forwarded (bytes): a larger declared Content-Length is answered 413 here, not streamed on. */
  MAX_BODY_SIZE: number;
  /**
   * Comma-separated addresses or CIDR networks of the proxies in front of the
   * gateway: only their X-Forwarded-For/-Proto/-Host and X-Real-IP are believed
   * (client address for allowed_ips and rate limits, Secure cookies). Unset: none.
   */
  TRUSTED_PROXIES?: string;
  /** Django's ALLOWED_HOSTS (comma-separated; `*` any, `.example.com` a domain and its subdomains). */
  ALLOWED_HOSTS: string;
  /** When set, /metrics wants it as a bearer token. */
  METRICS_TOKEN?: string;
  /** Graceful shutdown (seconds): readiness 503 before the listener closes; then the time requests in flight get. */
  SHUTDOWN_DELAY: number;
  SHUTDOWN_TIMEOUT: number;
  /** Deepest nesting of object fields a `/graphql/` query may have. */
  GRAPHQL_MAX_DEPTH: number;
  /** Most objects a `/graphql/` query may ask for (each object field 1, times the `limit` of every list around it; 10 for a list without one). */
  GRAPHQL_MAX_COST: number;
  /** How long a composition missing a service is kept before the gateway asks that service again (ms). */
  GRAPHQL_RECOMPOSE_MS: number;
}

const serviceUrls = Joi.string()
  .allow('')
  .default('')
  .custom((value: string) => {
    // fail at start, naming the entry, rather than at the first proxied request
    for (const [name, url] of Object.entries(parseServiceUrls(value))) {
      if (!/^https?:\/\/[^/]+/.test(url)) throw new Error(`${name} needs an http(s) URL, got "${url}"`);
    }
    return value;
  });

export const gatewayConfig = Joi.object<GatewayConfig>({
  NODE_ENV: baseConfigSchema.NODE_ENV,
  LOG_LEVEL: baseConfigSchema.LOG_LEVEL,
  HOST: baseConfigSchema.HOST,
  PORT: Joi.number().integer().min(0).max(65535).default(8000),
  INTERNAL_TOKEN_SECRET: baseConfigSchema.INTERNAL_TOKEN_SECRET,
  SERVICE_URLS: serviceUrls,
  PUBLIC_URL: baseConfigSchema.PUBLIC_URL,
  LOGIN_REQUIRED: baseConfigSchema.LOGIN_REQUIRED,
  EXEMPT_VIEW_PERMISSIONS: baseConfigSchema.EXEMPT_VIEW_PERMISSIONS,
  AMQP_URL: baseConfigSchema.AMQP_URL,
  TOKEN_CACHE_SECONDS: Joi.number().min(0).default(10),
  SESSION_SECRET: Joi.string().min(16).empty('').optional(),
  MAX_BODY_SIZE: baseConfigSchema.MAX_BODY_SIZE,
  METRICS_TOKEN: baseConfigSchema.METRICS_TOKEN,
  SHUTDOWN_DELAY: baseConfigSchema.SHUTDOWN_DELAY,
  SHUTDOWN_TIMEOUT: baseConfigSchema.SHUTDOWN_TIMEOUT,
  GRAPHQL_MAX_DEPTH: Joi.number().integer().min(1).default(10),
  GRAPHQL_MAX_COST: Joi.number().integer().min(1).default(250_000),
  GRAPHQL_RECOMPOSE_MS: Joi.number().integer().min(0).default(5000),
  TRUSTED_PROXIES: Joi.string()
    .allow('')
    .default('')
    .custom((value: string) => {
      new TrustedProxies(value); // throws, naming the bad entry
      return value;
    }),
  ALLOWED_HOSTS: Joi.string()
    .default('*')
    .custom((value: string) => {
      new AllowedHosts(value); // throws, naming the bad entry
      return value;
    }),
});
