'use strict';
/**
 * The V8 heap policy of a service process in production: what keeps each one
 * under 150 MB resident under load (bench/memory.js, bench/README.md "Resident
 * memory"). Measured there: a service holds about 30 MB of live heap, but by
 * default V8 lets the heap grow to several times that between collections
 * while 1,000-object pages are served (dcim peaked at 238–295 MB).
 *
 * - `NODE_OPTIONS`: 4 MB semi-spaces (V8's default grows them to 16 MB):
 *   the young generation is collected sooner. The image sets it (its
 *   Dockerfile's ENV) and k8s adds the old space's hard cap, sized below each
 *   container's limit (a hard cap only stops an out-of-memory kill).
 * - `V8_FLAGS`: the heap grows by 10 % past what survived a collection, not
 *   by V8's dynamic factor (up to 4x): the soft limit that keeps it small.
 *   Not accepted in NODE_OPTIONS, so set at start by `applyHeapPolicy()`
 *   (deploy/entrypoint.js; V8 reads it at every collection).
 */
const NODE_OPTIONS = '--max-semi-space-size=4';
const V8_FLAGS = '--heap-growing-percent=10';

function applyHeapPolicy() {
  require('node:v8').setFlagsFromString(V8_FLAGS);
}

module.exports = { NODE_OPTIONS, V8_FLAGS, applyHeapPolicy };
