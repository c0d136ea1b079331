import jwt from 'jsonwebtoken';
import { serviceIdentity, signIdentity, verifyIdentity, type Identity } from '@inventory/auth';

const SECRET = 'identity-test-secret-0123456789abcdef';
const user: Identity = {
  user: { id: 7, username: 'ann', is_superuser: false, is_staff: false, is_active: true },
  token: { id: 3, write_enabled: true },
  permissions: [{ object_types: ['tenancy.tenant'], actions: ['view'], constraints: null }],
};
const INVALID = 'Invalid identity token.';

describe('identity tokens name their audience', () => {
  test('when a token is signed for a service, then it carries aud and that service accepts it', () => {
    const token = signIdentity(SECRET, user, 60, 'tenancy');
    expect(jwt.decode(token)).toMatchObject({ aud: 'tenancy', iss: 'inventory' });
    expect(verifyIdentity(SECRET, token, 'tenancy')).toEqual({ ...user, service: undefined });
  });

  test('when a token is for another service, then it is refused, also after the right service verified (and cached) it', () => {
    const token = signIdentity(SECRET, serviceIdentity('gateway'), 60, 'tenancy');
    expect(() => verifyIdentity(SECRET, token, 'extras')).toThrow(INVALID);
    expect(verifyIdentity(SECRET, token, 'tenancy').service).toBe('gateway');
    expect(verifyIdentity(SECRET, token, 'tenancy').service).toBe('gateway'); // from the cache
    expect(() => verifyIdentity(SECRET, token, 'extras')).toThrow(INVALID);
    expect(() => verifyIdentity(SECRET, token, 'Tenancy')).toThrow(INVALID);
  });

  test('when a token names no audience or several, then no service accepts it', () => {
    const none = jwt.sign({ ...user }, SECRET, { algorithm: 'HS256', expiresIn: 60, issuer: 'inventory' });
    expect(() => verifyIdentity(SECRET, none, 'tenancy')).toThrow(INVALID);
    const several = jwt.sign({ ...user }, SECRET, { algorithm: 'HS256', expiresIn: 60, issuer: 'inventory', audience: ['tenancy', 'extras'] });
    expect(() => verifyIdentity(SECRET, several, 'tenancy')).toThrow(INVALID);
    expect(() => verifyIdentity(SECRET, several, 'extras')).toThrow(INVALID);
  });

  test('when the secret is wrong, the token is missing or the verifier names no audience, then it is refused', () => {
    const token = signIdentity(SECRET, user, 60, 'tenancy');
    expect(() => verifyIdentity('another-secret-0123456789abcdef', token, 'tenancy')).toThrow(INVALID);
    expect(() => verifyIdentity(SECRET, undefined, 'tenancy')).toThrow('Authentication credentials were not provided.');
    expect(() => verifyIdentity(SECRET, token, '')).toThrow(INVALID);
  });

  test('when a verified (and cached) token has expired, then it is refused', () => {
    const token = signIdentity(SECRET, user, 60, 'tenancy');
    expect(verifyIdentity(SECRET, token, 'tenancy').user?.id).toBe(7);
    const later = Date.now() + 61_000;
    const now = jest.spyOn(Date, 'now').mockReturnValue(later);
    try {
      expect(() => verifyIdentity(SECRET, token, 'tenancy')).toThrow(INVALID);
    } finally {
      now.mockRestore();
    }
  });

  test('when a token is signed without an audience, then signing fails', () => {
    expect(() => signIdentity(SECRET, user, 60, '')).toThrow(/audience/);
    expect(() => signIdentity(SECRET, user, 60, undefined as unknown as string)).toThrow(/audience/);
  });
});
