import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import { pbkdf2 as pbkdf2Cb, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing.
 *
 * New hashes are argon2id with OWASP's parameters (Password Storage Cheat
 * Sheet: m=19456 KiB, t=2, p=1), stored in the PHC form
 * `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>` (97 characters, fits the
 * 128-character column).
 *
 * Also verified, and reported as needing a rehash (the caller stores a new
 * argon2id hash after a successful sign-in):
 * - `scrypt$N$r$p$<salt base64>$<hash base64>`: what this service stored before;
 * - `pbkdf2_sha256$<iterations>$<salt>$<hash base64>`: Django's default hasher
 *   (users moved over from NetBox);
 * - `argon2$argon2id$v=19$...`: Django's Argon2PasswordHasher;
 * - argon2 hashes with weaker parameters than the current ones.
 * Parameters read from a stored hash are bounded, so a tampered row cannot
 * make a sign-in exhaust memory or CPU.
 */
export const ARGON2 = { memoryCost: 19456, timeCost: 2, parallelism: 1, outputLen: 32 } as const;

/** Bounds on parameters read from stored hashes. */
const MAX_ARGON2_MEMORY_KIB = 262_144;
const MAX_ARGON2_TIME = 16;
const MAX_ARGON2_PARALLELISM = 16;
/** Django's default is 1,000,000 (5.2) / 1,200,000 (6.0): twice that is plenty. */
export const MAX_PBKDF2_ITERATIONS = 2_400_000;
const PBKDF2_KEY_LENGTH = 32;

const PHC = /^\$(argon2(?:id|i|d))\$v=(\d+)\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

export interface PasswordCheck {
  /** The password matches the stored hash. */
  ok: boolean;
  /** The stored hash is of an older format or weaker parameters: store `hashPassword(password)` (only meaningful when ok). */
  rehash: boolean;
}

const NO: PasswordCheck = { ok: false, rehash: false };

export async function hashPassword(password: string): Promise<string> {
  // argon2id is the library's default algorithm (its const enum cannot be used under isolatedModules)
  const hashed = await argon2Hash(password, { ...ARGON2 });
  if (!hashed.startsWith('$argon2id$')) throw new Error('argon2: unexpected hash variant');
  return hashed;
}

export function isHashed(value: unknown): boolean {
  return typeof value === 'string' && PHC.test(value);
}

/** Constant-time check of a password against a stored hash of any accepted format; never throws. */
export async function checkPassword(password: string, stored: string | null | undefined): Promise<PasswordCheck> {
  if (typeof stored !== 'string' || stored === '') {
    await dummyVerify(password);
    return NO;
  }
  try {
    if (stored.startsWith('$argon2')) return await checkArgon2(password, stored, false);
    if (stored.startsWith('argon2$argon2')) return await checkArgon2(password, stored.slice('argon2'.length), true);
    if (stored.startsWith('scrypt$')) return await checkScrypt(password, stored);
    if (stored.startsWith('pbkdf2_sha256$')) return await checkPbkdf2(password, stored);
  } catch {
    return NO;
  }
  // unknown hasher or Django's unusable password (`!...`)
  await dummyVerify(password);
  return NO;
}

/** Whether the password matches (see checkPassword). */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  return (await checkPassword(password, stored)).ok;
}

async function checkArgon2(password: string, phc: string, foreignFormat: boolean): Promise<PasswordCheck> {
  const m = PHC.exec(phc);
  if (!m) return NO;
  const [, variant, version, mem, time, par] = m;
  const memory = Number(mem);
  const passes = Number(time);
  const lanes = Number(par);
  if (memory > MAX_ARGON2_MEMORY_KIB || passes > MAX_ARGON2_TIME || lanes > MAX_ARGON2_PARALLELISM || passes < 1 || lanes < 1) return NO;
  const ok = await argon2Verify(phc, password);
  const weaker = variant !== 'argon2id' || version !== '19' || memory < ARGON2.memoryCost || passes < ARGON2.timeCost;
  return { ok, rehash: ok && (foreignFormat || weaker) };
}

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

async function checkScrypt(password: string, stored: string): Promise<PasswordCheck> {
  const parts = stored.split('$');
  if (parts.length !== 6) return NO;
  const [, n, r, p, saltB64, hashB64] = parts;
  const cost = Number(n);
  const block = Number(r);
  const par = Number(p);
  // refuse absurd parameters (a tampered row must not exhaust memory)
  if (!Number.isInteger(cost) || cost < 2 || cost > 1 << 20 || (cost & (cost - 1)) !== 0 || !Number.isInteger(block) || block < 1 || block > 32 || !Number.isInteger(par) || par < 1 || par > 16) {
    return NO;
  }
  const expected = Buffer.from(hashB64, 'base64');
  if (expected.length === 0) return NO;
  const actual = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, { N: cost, r: block, p: par, maxmem: 128 * cost * block * 2 + 1024 * 1024 });
  const ok = actual.length === expected.length && timingSafeEqual(actual, expected);
  return { ok, rehash: ok };
}

function pbkdf2(password: string, salt: string, iterations: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    pbkdf2Cb(Buffer.from(password, 'utf8'), Buffer.from(salt, 'utf8'), iterations, PBKDF2_KEY_LENGTH, 'sha256', (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** Django's PBKDF2PasswordHasher: `pbkdf2_sha256$<iterations>$<salt>$<base64 of the 32-byte key>`. */
async function checkPbkdf2(password: string, stored: string): Promise<PasswordCheck> {
  const parts = stored.split('$');
  if (parts.length !== 4) return NO;
  const [, iter, salt, hashB64] = parts;
  if (!/^\d{1,9}$/.test(iter)) return NO;
  const iterations = Number(iter);
  if (iterations < 1 || iterations > MAX_PBKDF2_ITERATIONS || !salt) return NO;
  const expected = Buffer.from(hashB64, 'base64');
  if (expected.length !== PBKDF2_KEY_LENGTH) return NO;
  const actual = await pbkdf2(password, salt, iterations);
  const ok = timingSafeEqual(actual, expected);
  return { ok, rehash: ok };
}

let dummy: Promise<string> | null = null;

/** Spends the time of one verification, so an unknown username takes as long as a wrong password. */
export async function dummyVerify(password: string): Promise<void> {
  dummy ??= hashPassword(randomBytes(12).toString('hex'));
  try {
    await argon2Verify(await dummy, password);
  } catch {
    // nothing to report: only the time spent matters
  }
}

/** A random password for the bootstrap admin. */
export function randomPassword(): string {
  return randomBytes(18).toString('base64url');
}
