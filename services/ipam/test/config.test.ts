import { readConfig } from '@inventory/core';
import { ipamConfig } from '@inventory/ipam';

const env = { DATABASE_URL: 'postgres://u:p@localhost/db', INTERNAL_TOKEN_SECRET: 'x'.repeat(16) };

describe('ipam configuration', () => {
  test('when ENFORCE_GLOBAL_UNIQUE is not set, then it is true (NetBox 3.7\'s default); when set, it is read as a boolean', () => {
    expect(readConfig(ipamConfig, env).ENFORCE_GLOBAL_UNIQUE).toBe(true);
    expect(readConfig(ipamConfig, { ...env, ENFORCE_GLOBAL_UNIQUE: 'false' }).ENFORCE_GLOBAL_UNIQUE).toBe(false);
    expect(readConfig(ipamConfig, { ...env, ENFORCE_GLOBAL_UNIQUE: '0' }).ENFORCE_GLOBAL_UNIQUE).toBe(false);
    expect(readConfig(ipamConfig, { ...env, ENFORCE_GLOBAL_UNIQUE: 'true' }).ENFORCE_GLOBAL_UNIQUE).toBe(true);
  });

  test('when ENFORCE_GLOBAL_UNIQUE is not a boolean, then the error names the variable', () => {
    expect(() => readConfig(ipamConfig, { ...env, ENFORCE_GLOBAL_UNIQUE: 'maybe' })).toThrow(/ENFORCE_GLOBAL_UNIQUE/);
  });
});
