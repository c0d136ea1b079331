import { ConfigError, readConfig } from '@inventory/core';
import { gatewayConfig, parseAuthorization, routeFor } from '@inventory/gateway';

const SECRET = 'a-secret-of-at-least-16-chars';

describe('configuration', () => {
  test('when only the secret is set, then the documented defaults apply', () => {
    const c = readConfig(gatewayConfig, { INTERNAL_TOKEN_SECRET: SECRET });
    expect(c).toMatchObject({ PORT: 8000, TOKEN_CACHE_SECONDS: 10, LOGIN_REQUIRED: false, SERVICE_URLS: '', LOG_LEVEL: 'info' });
  });

  test('when values come from the environment, then they are converted', () => {
    const c = readConfig(gatewayConfig, {
      INTERNAL_TOKEN_SECRET: SECRET,
      PORT: '9000',
      LOGIN_REQUIRED: 'true',
      TOKEN_CACHE_SECONDS: '0',
      SERVICE_URLS: 'users=http://users:8000,tenancy=http://tenancy:8000',
      PUBLIC_URL: 'https://netbox.example.com',
    });
    expect(c).toMatchObject({ PORT: 9000, LOGIN_REQUIRED: true, TOKEN_CACHE_SECONDS: 0, PUBLIC_URL: 'https://netbox.example.com' });
  });

  test('when SERVICE_URLS or the secret is wrong, then reading the configuration fails naming the variable', () => {
    expect(() => readConfig(gatewayConfig, { INTERNAL_TOKEN_SECRET: SECRET, SERVICE_URLS: 'users' })).toThrow(/SERVICE_URLS/);
    expect(() => readConfig(gatewayConfig, { INTERNAL_TOKEN_SECRET: SECRET, SERVICE_URLS: 'users=ftp://x' })).toThrow(ConfigError);
    expect(() => readConfig(gatewayConfig, {})).toThrow(/INTERNAL_TOKEN_SECRET/);
  });
});

describe('Authorization header', () => {
  test('when the header is absent or another scheme, then the caller is anonymous', () => {
    for (const h of [undefined, '', 'Bearer abc', 'Basic dXNlcjpwdw==', 'Tokens abc']) expect(parseAuthorization(h)).toEqual({ kind: 'none' });
  });

  test('when the header is Token <key> in any case, then the key is read', () => {
    expect(parseAuthorization('Token abc')).toEqual({ kind: 'token', key: 'abc' });
    expect(parseAuthorization('tOkEn   abc ')).toEqual({ kind: 'token', key: 'abc' });
  });

  test('when the header is malformed, then DRF refusals are thrown', () => {
    expect(() => parseAuthorization('Token')).toThrow('Invalid token header. No credentials provided.');
    expect(() => parseAuthorization('Token a b')).toThrow('Invalid token header. Token string should not contain spaces.');
  });
});

describe('routing table', () => {
  test('when a path is under a service area, then the same-named service owns it', () => {
    expect(routeFor('/api/dcim/sites/1/')).toEqual({ area: 'dcim', service: 'dcim', root: false });
    expect(routeFor('/api/tenancy/')).toEqual({ area: 'tenancy', service: 'tenancy', root: true });
    expect(routeFor('/api/extras/tags/')).toEqual({ area: 'extras', service: 'extras', root: false });
  });

  test('when a path is under vpn, then ipam owns it (decision 028)', () => {
    expect(routeFor('/api/vpn/')).toEqual({ area: 'vpn', service: 'ipam', root: true });
    expect(routeFor('/api/vpn/l2vpn-terminations/3/')).toEqual({ area: 'vpn', service: 'ipam', root: false });
  });

  test('when a path is under NetBox 3.7\'s core area, then extras owns it (decision 028)', () => {
    expect(routeFor('/api/core/')).toEqual({ area: 'core', service: 'extras', root: true });
    expect(routeFor('/api/core/data-sources/1/sync/')).toEqual({ area: 'core', service: 'extras', root: false });
    expect(routeFor('/api/core/jobs/')?.service).toBe('extras');
  });

  test('when a path is a webhook endpoint, then the webhooks service owns it', () => {
    expect(routeFor('/api/extras/webhooks/3/')?.service).toBe('webhooks');
    expect(routeFor('/api/extras/webhook-deliveries/')?.service).toBe('webhooks');
    expect(routeFor('/api/extras/event-rules/2/')?.service).toBe('webhooks');
    expect(routeFor('/api/extras/webhooksx/')?.service).toBe('extras');
  });

  test('when a path has dot segments, also encoded, then there is no route', () => {
    for (const p of ['/api/tenancy/../../internal/openapi', '/api/tenancy/%2e%2e/%2E%2E/internal/openapi', '/api/tenancy/./tenants/', '/api/tenancy/%2e%2e%5cinternal/', '/api/tenancy/%zz/']) {
      expect(routeFor(p)).toBeNull();
    }
  });

  test('when the area is unknown or the gateway own, then there is no route', () => {
    for (const p of ['/api/', '/api/plugins/', '/api/status/', '/api/nosuch/', '/internal/openapi']) expect(routeFor(p)).toBeNull();
  });
});
