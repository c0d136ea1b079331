import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const VALIDATOR_CLI = path.join(__dirname, '../../../node_modules/@seriousme/openapi-schema-validator/bin/validate-api-cli.js');

/**
 * Validates with @seriousme/openapi-schema-validator. It is an ES module,
 * which jest's CommonJS runtime cannot load, so it runs in a child node.
 */
export async function validateOpenApi(doc: unknown): Promise<{ valid: boolean; errors?: unknown }> {
  if (!existsSync(VALIDATOR_CLI)) throw new Error('@seriousme/openapi-schema-validator is not installed');
  const dir = mkdtempSync(path.join(tmpdir(), 'openapi-'));
  const file = path.join(dir, 'schema.json');
  writeFileSync(file, JSON.stringify(doc));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [VALIDATOR_CLI, file], { maxBuffer: 64 * 1024 * 1024 });
    return JSON.parse(stdout);
  } catch (err) {
    const out = (err as { stdout?: string }).stdout;
    return out ? JSON.parse(out) : { valid: false, errors: String(err) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
