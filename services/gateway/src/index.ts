export { createGateway, authFilter, AUTH_EVENTS, type Gateway } from './gateway';
export { gatewayConfig, type GatewayConfig } from './config';
export { parseAuthorization, TokenVerifier, type Credentials, type VerifiedToken } from './tokens';
export { routeFor, SERVICE_AREAS, ROOT_AREAS } from './routing';
export { API_VERSION, NETBOX_VERSION } from './status';
export { SessionCodec, sessionSecret, parseCookies, SESSION_COOKIE, CSRF_COOKIE, type SessionClaims } from './session';
export { CsrfTokens, CSRF_FAILED } from './csrf';
export { safeNext } from './page-html';
export { expiresFromForm, maskedKey } from './tokens-page';
