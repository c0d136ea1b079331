#!/usr/bin/env node
/**
 * The image's entry point: runs the service named by the first argument or
 * SERVICE (`gateway`, `users`, `ipam`, ...: `services/<name>/dist/main.js`),
 * or `migrate` (deploy/migrate.js, the migration job), or `import` (copies a
 * NetBox inventory in: `import --from <NetBox URL> --token ... --to ...`;
 * libs/importer, docs/decisions/031). One image serves every Deployment
 * (docs/decisions/021).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const SERVICES_DIR = path.join(ROOT, 'services');

/** The names this tree answers to: `import`, `migrate` and every package under services/. */
function entryNames() {
  const services = fs.readdirSync(SERVICES_DIR).filter((n) => fs.existsSync(path.join(SERVICES_DIR, n, 'package.json')));
  return ['import', 'migrate', ...services.sort()];
}

/** The script that `name` runs (a service's built main.js), or null when there is no such name. */
function entryFor(name) {
  if (name === 'migrate') return path.join(__dirname, 'migrate.js');
  if (name === 'import') return path.join(ROOT, 'libs', 'importer', 'dist', 'import-netbox.js');
  // a plain name only: never a path out of services/
  if (typeof name !== 'string' || !/^[a-z][a-z0-9-]*$/.test(name)) return null;
  if (!fs.existsSync(path.join(SERVICES_DIR, name, 'package.json'))) return null;
  return path.join(SERVICES_DIR, name, 'dist', 'main.js');
}

if (require.main === module) {
  const name = process.argv[2] || process.env.SERVICE;
  const script = entryFor(name);
  if (!script) {
    process.stderr.write(`${name ? `unknown service "${name}"` : 'no service named'}: set SERVICE (or pass it as the argument) to one of ${entryNames().join(', ')}\n`);
    process.exit(2);
  }
  // the production heap policy (deploy/heap.js) for services; the migration job and an import are short-lived
  if (name !== 'migrate' && name !== 'import') require('./heap').applyHeapPolicy();
  // the command's own options follow its name
  if (name === 'import' && process.argv[2] === 'import') process.argv.splice(2, 1);
  require(script);
}

module.exports = { entryFor, entryNames };
