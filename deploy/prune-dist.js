#!/usr/bin/env node
'use strict';
/**
 * Before `npm run build`: removes what a package's dist/ holds of sources
 * that are gone (a file moved or deleted since the last build), and then
 * its tsbuildinfo, so `tsc -b` builds that package whole. Without it a
 * checkout updated in place keeps the old outputs beside the new ones, and
 * the incremental build can resolve types from them.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const OUTPUT = /\.(js|js\.map|d\.ts|d\.ts\.map)$/;

function walk(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

for (const group of ['libs', 'services']) {
  for (const name of fs.readdirSync(path.join(root, group))) {
    const pkg = path.join(root, group, name);
    const dist = path.join(pkg, 'dist');
    const stale = walk(dist).filter((file) => {
      if (!OUTPUT.test(file)) return false;
      const rel = path.relative(dist, file).replace(OUTPUT, '');
      return !fs.existsSync(path.join(pkg, 'src', `${rel}.ts`));
    });
    if (!stale.length) continue;
    for (const file of stale) fs.rmSync(file);
    fs.rmSync(path.join(pkg, 'tsconfig.tsbuildinfo'), { force: true });
    console.error(`${group}/${name}: ${stale.length} outputs of removed sources pruned; built whole`);
  }
}
