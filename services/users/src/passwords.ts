import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing with scrypt (node built-in). Stored form:
 * `scrypt$N$r$p$<salt base64>$<hash base64>` (fits the 128-character column).
 */
const N = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const PREFIX = 'scrypt';

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function memoryFor(n: number, r: number): number {
  return 128 * n * r * 2 + 1024 * 1024;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, { N, r: R, p: P, maxmem: memoryFor(N, R) });
  return [PREFIX, N, R, P, salt.toString('base64'), hash.toString('base64')].join('$');
}

export function isHashed(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(`${PREFIX}$`) && value.split('$').length === 6;
}

/** Constant-time check of a password against a stored hash; false for anything malformed. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = typeof stored === 'string' ? stored.split('$') : [];
  if (parts.length !== 6 || parts[0] !== PREFIX) {
    await dummyVerify(password);
    return false;
  }
  const [, n, r, p, saltB64, hashB64] = parts;
  const cost = Number(n);
  const block = Number(r);
  const par = Number(p);
  // refuse absurd parameters (a tampered row must not exhaust memory)
  if (!Number.isInteger(cost) || cost < 2 || cost > 1 << 20 || (cost & (cost - 1)) !== 0 || !Number.isInteger(block) || block < 1 || block > 32 || !Number.isInteger(par) || par < 1 || par > 16) {
    return false;
  }
  const expected = Buffer.from(hashB64, 'base64');
  if (expected.length === 0) return false;
  const actual = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, { N: cost, r: block, p: par, maxmem: memoryFor(cost, block) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

let dummy: Promise<string> | null = null;

/** Spends the time of one verification, so an unknown username takes as long as a wrong password. */
export async function dummyVerify(password: string): Promise<void> {
  dummy ??= hashPassword(randomBytes(12).toString('hex'));
  const stored = await dummy;
  const [, , , , saltB64] = stored.split('$');
  await scrypt(password, Buffer.from(saltB64, 'base64'), KEY_LENGTH, { N, r: R, p: P, maxmem: memoryFor(N, R) });
}

/** A random password for the bootstrap admin. */
export function randomPassword(): string {
  return randomBytes(18).toString('base64url');
}
