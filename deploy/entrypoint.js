#!/usr/bin/env node
/**
 * The image's entry point: runs the service named by the first argument or
 * SERVICE (`gateway`, `users`, `ipam`, ...: `services/<name>/dist/main.js`),
 * or `migrate` (deploy/migrate.js, the migration job), or a command, the
 * rest of the arguments being the command's: `import --from <NetBox URL>
 * --token ...` (copies a NetBox inventory in: docs/decisions/031) and
 * `import-device-types <folder> --to <URL> --to-token <token>` (decision
 * 032). One image serves every Deployment (docs/decisions/021).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const SERVICES_DIR = path.join(ROOT, 'services');
/** Commands of the image that are not services: name -> script (run with the arguments after the name). */
const COMMANDS = {
  import: path.join(ROOT, 'libs', 'importer', 'dist', 'import-netbox.js'),
  'import-device-types': path.join(ROOT, 'libs', 'importer', 'dist', 'device-types', 'cli.js'),
};

/** The names this tree answers to: `migrate`, the commands and every package under services/. */
function entryNames() {
  const services = fs.readdirSync(SERVICES_DIR).filter((n) => fs.existsSync(path.join(SERVICES_DIR, n, 'package.json')));
  return ['migrate', ...Object.keys(COMMANDS), ...services.sort()];
}

/** The script that `name` runs (a service's built main.js), or null when there is no such name. */
function entryFor(name) {
  if (name === 'migrate') return path.join(__dirname, 'migrate.js');
  if (Object.hasOwn(COMMANDS, name)) return COMMANDS[name];
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
  if (Object.hasOwn(COMMANDS, name)) {
    // a command takes the arguments after its name, and exits with the command's status (an HTTP client's idle sockets do not hold the process)
    require(script).main(process.argv.slice(3)).then(
      (code) => process.exit(code),
      (e) => {
        process.stderr.write(`${e.stack ?? e}\n`);
        process.exitCode = 1;
      },
    );
  } else {
    // the production heap policy (deploy/heap.js) for services; the migration job is short-lived
    if (name !== 'migrate') require('./heap').applyHeapPolicy();
    require(script);
  }
}

module.exports = { entryFor, entryNames };
