/**
 * NetBox's `X-Hook-Signature` (spec §D.5 step 7): the lower-case hex
 * HMAC-SHA512 of the exact body bytes sent, keyed with the secret's UTF-8
 * bytes. Nothing else (no timestamp) is signed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Hook-Signature';

export function signBody(secret: string, body: Uint8Array | string): string {
  return createHmac('sha512', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}

/** Whether `header` is the signature of `body` with `secret`, compared in constant time. */
export function verifySignature(secret: string, body: Uint8Array | string, header: string | null | undefined): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(signBody(secret, body), 'utf8');
  const given = Buffer.from(header.trim().toLowerCase(), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The Standard Webhooks signature (standardwebhooks.com) beside NetBox's:
 * `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`,
 * keyed with the secret's UTF-8 bytes (a receiver using a Standard Webhooks
 * library passes the secret base64-encoded, as its `whsec_` secrets are).
 */
export function standardSignature(secret: string, id: string, timestamp: number, body: Uint8Array | string): string {
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  hmac.update(`${id}.${timestamp}.`);
  hmac.update(body);
  return `v1,${hmac.digest('base64')}`;
}
