import { createHmac } from 'node:crypto';
import { signBody, verifySignature } from '../src/dispatch/signature';

const body = Buffer.from('{"event": "created", "model": "site", "data": {"name": "Z\\u00fcrich"}}', 'utf8');

describe('X-Hook-Signature', () => {
  test('when a body is signed, then the signature is the hex HMAC-SHA512 of its bytes keyed with the secret', () => {
    const expected = createHmac('sha512', 's3cret').update(body).digest('hex');
    expect(signBody('s3cret', body)).toBe(expected);
    expect(signBody('s3cret', body)).toMatch(/^[0-9a-f]{128}$/);
  });

  test('when the RFC 4231 test case 2 is signed, then the published HMAC-SHA512 comes out', () => {
    expect(signBody('Jefe', Buffer.from('what do ya want for nothing?'))).toBe(
      '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
    );
  });

  test('when the secret has non-ASCII characters, then its UTF-8 bytes are the key', () => {
    expect(signBody('clé', body)).toBe(createHmac('sha512', Buffer.from('clé', 'utf8')).update(body).digest('hex'));
  });

  test('when the signature matches (in any hex case), then it verifies', () => {
    const signature = signBody('s3cret', body);
    expect(verifySignature('s3cret', body, signature)).toBe(true);
    expect(verifySignature('s3cret', body, signature.toUpperCase())).toBe(true);
  });

  test('when the secret, the body or the header differs, then it does not verify', () => {
    const signature = signBody('s3cret', body);
    expect(verifySignature('wrong', body, signature)).toBe(false);
    expect(verifySignature('s3cret', Buffer.concat([body, Buffer.from(' ')]), signature)).toBe(false);
    expect(verifySignature('s3cret', body, signature.slice(0, -1))).toBe(false);
    expect(verifySignature('s3cret', body, undefined)).toBe(false);
    expect(verifySignature('s3cret', body, '')).toBe(false);
  });
});
