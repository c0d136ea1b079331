import { readConfig, type BaseConfig } from '@inventory/core';
import { createGateway, type Gateway } from './gateway';
import { gatewayConfig } from './config';

/**
 * A gateway for a test stack (the test kit's `bootStack`), configured as the
 * stack's services are (secret, service URLs, port, broker), plus the test's
 * own settings.
 */
export function stackGateway(extra: Record<string, string> = {}): (cfg: BaseConfig) => Gateway {
  return (cfg) =>
    createGateway(
      readConfig(gatewayConfig, {
        INTERNAL_TOKEN_SECRET: cfg.INTERNAL_TOKEN_SECRET,
        SERVICE_URLS: cfg.SERVICE_URLS,
        PORT: String(cfg.PORT),
        LOG_LEVEL: 'silent',
        ...(cfg.AMQP_URL ? { AMQP_URL: cfg.AMQP_URL } : {}),
        ...extra,
      }),
    );
}
