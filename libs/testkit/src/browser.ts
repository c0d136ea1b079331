import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, rmdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BrowserContext } from 'playwright-core';

/** Debian's Chromium, driven by playwright-core (it downloads no browser of its own). */
export const CHROMIUM = '/usr/bin/chromium';

/** Headless, sandbox off (root), no network of its own: a closed machine refuses Chromium's background connections. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const run = promisify(execFile);

/**
 * A headless Chromium with a fresh profile; Debian's `chromium` is installed
 * with apt first when missing and running as root (a fresh CI machine), one
 * suite at a time (a lock directory: apt takes one install at once).
 */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  await ensureChromium();
  // loaded here, not with the test kit: most suites drive no browser
  const { chromium } = await import('playwright-core');
  const profile = await mkdtemp(path.join(os.tmpdir(), 'inventory-chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

async function ensureChromium(): Promise<void> {
  if (existsSync(CHROMIUM)) return;
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    throw new Error(`${CHROMIUM} is missing and this is not root on Linux: install Debian's "chromium" package (apt-get install -y chromium) to run the browser tests`);
  }
  const lock = path.join(os.tmpdir(), 'inventory-chromium-install.lock');
  const deadline = Date.now() + 11 * 60_000;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`waited 11 minutes for another suite's chromium install (${lock})`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    if (existsSync(CHROMIUM)) return; // another suite installed it meanwhile
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    await run('apt-get', ['update'], { env, timeout: 4 * 60_000, maxBuffer: 64 * 1024 * 1024 });
    await run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { env, timeout: 6 * 60_000, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const e = err as { message: string; stderr?: string };
    throw new Error(`installing chromium with apt-get failed: ${e.message}\n${(e.stderr ?? '').slice(-2000)}`);
  } finally {
    await rmdir(lock).catch(() => undefined);
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get install chromium finished but ${CHROMIUM} is still missing`);
}
