import pino from 'pino';
import { currentContext } from './context';

export type Logger = pino.Logger;

/**
 * JSON lines on stdout. Every line logged inside a request carries its
 * request id. Authorization headers and token keys are redacted.
 */
export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name,
    level,
    base: { service: name },
    mixin() {
      const ctx = currentContext();
      return ctx ? { request_id: ctx.requestId } : {};
    },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'key', 'password', '*.key', '*.password', 'token'],
      censor: '[redacted]',
    },
  });
}
