'use strict';
/**
 * One process of the quick start (deploy/start.js forks one per service and
 * one for the gateway): builds the named server from the built packages, as
 * its main.ts does, and tells the quick start over IPC when it listens. The
 * users service makes the first superuser (SUPERUSER_* or a generated one)
 * and hands its credentials to the quick start, which prints them once.
 */
const { createFromEnv } = require('./services');

// the production heap policy, as the image's entry point applies it
require('./heap').applyHeapPolicy();

async function main() {
  const name = process.argv[2];
  const port = Number(process.env.PORT);
  const server = createFromEnv(name, process.env);
  await server.start(port);
  let admin = null;
  if (name === 'users') {
    const made = await require('@inventory/users').bootstrapAdmin(server, process.env);
    if (made.created) admin = { username: made.username, password: made.password || null, token: made.token || null };
  }
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  // ^C reaches every process of the terminal: the quick start stops its children itself, in order
  process.on('SIGINT', () => undefined);
  // the quick start went away: do not outlive it
  process.on('disconnect', stop);
  process.send({ ready: true, admin });
}

main().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
