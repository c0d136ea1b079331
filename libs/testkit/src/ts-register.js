'use strict';
/**
 * Lets a child process run the TypeScript sources as they are, with no build
 * step (`node -r <this file> services/<name>/src/main.ts`): `.ts` files are
 * transpiled on load (no type check: `npm run typecheck` does that) and
 * `@inventory/<name>` resolves to that package's `src/index.ts`, as jest's
 * moduleNameMapper does. Transpiled files are cached in the OS temp dir.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '../../..');
const packages = new Map();
for (const dir of ['libs', 'services']) {
  for (const name of fs.readdirSync(path.join(root, dir))) packages.set(`@inventory/${name}`, path.join(root, dir, name, 'src', 'index.ts'));
}

// threads started from these sources (the template workers) load this file first too
process.env.TS_REGISTER = __filename;

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolveFilename.call(this, packages.get(request) ?? request, ...rest);
};

// typescript loads (slowly) only when a file is not in the cache
let compile = null;
function transpile(source, fileName) {
  if (!compile) {
    const ts = require('typescript');
    const compilerOptions = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, isolatedModules: true, inlineSourceMap: true };
    compile = (text, name) => ts.transpileModule(text, { compilerOptions, fileName: name }).outputText;
  }
  return compile(source, fileName);
}
const cacheDir = path.join(os.tmpdir(), 'inventory-ts-register', require('typescript/package.json').version);
fs.mkdirSync(cacheDir, { recursive: true });

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const key = crypto.createHash('sha1').update(filename).update('\0').update(source).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  let output;
  try {
    output = fs.readFileSync(cached, 'utf8');
  } catch {
    output = transpile(source, filename);
    const tmp = `${cached}.${process.pid}`;
    fs.writeFileSync(tmp, output);
    fs.renameSync(tmp, cached);
  }
  module._compile(output, filename);
};

// a test's child: it ends with the test process that started it (never left running when that one dies)
if (process.env.INVENTORY_EXIT_WITH_PARENT === '1' && process.send) {
  process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
}
