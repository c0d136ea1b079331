import { bootStack, type Stack } from '@inventory/testkit';
import { createService as ipam } from '@inventory/ipam';

/**
 * Several instances of one service in one process (the quick start, the
 * tests) keep their own settings: nothing per instance is set on the shared
 * model declarations or on module state (issue 22).
 */
let strict: Stack;
let lax: Stack;

beforeAll(async () => {
  // the lax one is made last: a setting written to module state would now hold for both
  strict = await bootStack({ ipam: (c) => ipam({ ...c, ENFORCE_GLOBAL_UNIQUE: true }) }, {}, { template: true });
  lax = await bootStack({ ipam: (c) => ipam({ ...c, ENFORCE_GLOBAL_UNIQUE: false }) }, {}, { template: true });
}, 120_000);
afterAll(async () => {
  await strict?.stop();
  await lax?.stop();
});

test('when two ipam instances differ in ENFORCE_GLOBAL_UNIQUE, then each applies its own, turn and turn about', async () => {
  for (const prefix of ['10.1.0.0/16', '10.2.0.0/16', '10.3.0.0/16']) {
    for (const stack of [strict, lax]) expect((await stack.client('ipam').post('/api/ipam/prefixes/', { prefix })).status).toBe(201);
    expect((await strict.client('ipam').post('/api/ipam/prefixes/', { prefix })).body).toEqual({ prefix: [`Duplicate prefix found in global table: ${prefix}`] });
    expect((await lax.client('ipam').post('/api/ipam/prefixes/', { prefix })).status).toBe(201);
  }
});
