'use strict';
/**
 * The community device-type library imported (issue 25 item 5; docs/decisions/032): the test
 * subset of ../shared/devicetype-library (about 180 files; BENCH_LIBRARY names another copy)
 * into an empty inventory through the gateway with an API token, as `npm run import-device-types`
 * does; then the same folder again (nothing to write). users, extras, dcim and the gateway run as
 * separate processes. Figures: files/s and objects written/s, the time of each phase, and the
 * first import extrapolated to the whole library (BENCH_LIBRARY_TYPES, default 5,000 types) at
 * the subset's rate. Goal (the issue's): the subset imported in seconds (under 10 s).
 */
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { startPostgres, startRabbitMQ } = require('@inventory/infra');
// this checkout's build (npm run build), whichever checkout node_modules links to
const { importDeviceTypes } = require('../libs/importer');
const { serviceProcesses, stopAll, writeReport, run } = require('./children');

const LIBRARY = process.env.BENCH_LIBRARY || path.resolve(__dirname, '..', '..', 'shared', 'devicetype-library');
const LIBRARY_TYPES = Number(process.env.BENCH_LIBRARY_TYPES || 5000);
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** One import's figures. */
const figures = (s) => ({
  seconds: round(s.seconds),
  read_validate_s: round(s.phases.readSeconds),
  write_s: round(s.phases.writeSeconds),
  files: s.files,
  imported: s.imported,
  skipped: s.skipped.length,
  files_per_s: round(s.files / s.seconds, 1),
  objects_written: s.writes.objects,
  write_requests: s.writes.requests,
  read_requests: s.reads.requests,
  objects_per_s: s.writes.objects ? round(s.writes.objects / s.phases.writeSeconds, 0) : 0,
  counts: s.counts,
  requests: s.requests,
});

async function main() {
  const [pg, rabbit] = await Promise.all([startPostgres({ log: () => undefined }), startRabbitMQ({ log: () => undefined })]);
  let children = [];
  try {
    const token = randomBytes(20).toString('hex');
    const env = { SUPERUSER_NAME: 'bench', SUPERUSER_PASSWORD: randomBytes(12).toString('hex'), SUPERUSER_API_TOKEN: token };
    const services = await serviceProcesses(['users', 'extras', 'dcim', 'gateway'], { databaseUrl: pg.url, amqpUrl: rabbit.url, env });
    children = services.children;
    const options = { folder: LIBRARY, to: services.urls.gateway, token, onError: 'skip', log: (l) => process.stderr.write(`${l}\n`) };
    const first = figures(await importDeviceTypes(options));
    const again = figures(await importDeviceTypes(options));
    const perType = first.seconds / first.imported;
    writeReport('device-types', {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, load_average_1m: round(os.loadavg()[0], 1) },
      library: path.relative(path.resolve(__dirname, '..'), LIBRARY),
      goals: { subset_seconds: 10 },
      first,
      again,
      extrapolated: {
        types: LIBRARY_TYPES,
        seconds: round(perType * LIBRARY_TYPES, 0),
        objects: Math.round((first.objects_written / first.imported) * LIBRARY_TYPES),
        how: 'the first import\'s seconds per imported file times the library\'s types (the writes are batched per 200 files, so the rate holds for more batches)',
      },
    });
  } finally {
    await stopAll(children);
    await Promise.all([pg.stop(), rabbit.stop()]);
  }
}

run(main);
