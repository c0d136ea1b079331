import { baseConfig, readConfig } from '@inventory/core';
import { createService as extras } from '@inventory/extras';
import { mediaStoreOf } from '../src/images/hooks';

/**
 * Several extras instances in one process (the quick start, the tests) keep
 * their own media stores: the image attachments' hooks read the store of the
 * instance serving the write (`ctx.own`), and nothing is set on the shared
 * declarations (issue 22).
 */
test('when two extras instances have different media roots, then each stores in its own, and the shared declarations are untouched', () => {
  const config = { ...readConfig(baseConfig, { DATABASE_URL: 'postgres://127.0.0.1:1/none', INTERNAL_TOKEN_SECRET: 'test-internal-secret-0123456789abcdef' }), MEDIA_ROOT: '/tmp/inventory-media-a' };
  const a = extras(config);
  const b = extras({ ...config, MEDIA_ROOT: '/tmp/inventory-media-b' });
  expect([mediaStoreOf(a.ctx).root, mediaStoreOf(b.ctx).root]).toEqual(['/tmp/inventory-media-a', '/tmp/inventory-media-b']);
  // one declaration, one set of hooks, for every instance
  expect(a.ctx.models.get('extras.imageattachment')).toBe(b.ctx.models.get('extras.imageattachment'));
});
