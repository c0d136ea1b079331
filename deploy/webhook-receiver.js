#!/usr/bin/env node
/**
 * A local webhook receiver for trying webhooks out (NetBox's
 * `manage.py webhook_receiver`): prints every request's method, path,
 * headers and body, and answers 200 with an empty body.
 *
 *   npm run webhook-receiver -- [--port 9000] [--secret S]
 *
 * With --secret, each request's X-Hook-Signature (hex HMAC-SHA512 of the raw
 * body) is checked in constant time: "signature: valid", "invalid" or "absent".
 */
'use strict';
const http = require('node:http');
const { createHmac, timingSafeEqual } = require('node:crypto');

function parseArgs(argv) {
  const options = { port: 9000, secret: null };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => (inline !== undefined ? inline : argv[++i]);
    if (flag === '--port') {
      const port = Number(value());
      if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a TCP port number, got ${argv[i]}`);
      options.port = port;
    } else if (flag === '--secret') {
      options.secret = value();
      if (!options.secret) fail('--secret needs a value');
    } else if (flag === '--help' || flag === '-h') {
      process.stdout.write('usage: node deploy/webhook-receiver.js [--port 9000] [--secret S]\n');
      process.exit(0);
    } else {
      fail(`unknown argument: ${argv[i]}`);
    }
  }
  return options;
}

function fail(message) {
  process.stderr.write(`webhook-receiver: ${message}\n`);
  process.exit(2);
}

function signatureStatus(secret, body, header) {
  if (typeof header !== 'string' || header === '') return 'absent';
  if (!secret) return 'not checked (no --secret)';
  const expected = Buffer.from(createHmac('sha512', Buffer.from(secret, 'utf8')).update(body).digest('hex'));
  const given = Buffer.from(header.trim().toLowerCase());
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'valid' : 'invalid';
}

function main() {
  const { port, secret } = parseArgs(process.argv.slice(2));
  let count = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const lines = [`[${++count}] ${new Date().toISOString()} ${req.method} ${req.url} HTTP/${req.httpVersion}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      lines.push('', body.length ? body.toString('utf8') : '(no body)', '');
      lines.push(`signature: ${signatureStatus(secret, body, req.headers['x-hook-signature'])}`);
      lines.push('-'.repeat(40), '');
      process.stdout.write(lines.join('\n'));
      res.writeHead(200, { 'Content-Length': '0' });
      res.end();
    });
  });
  server.on('error', (err) => fail(err.message));
  server.listen(port, () => {
    const bound = server.address().port;
    process.stdout.write(`Listening for webhooks on http://localhost:${bound}/` + (secret ? ' (verifying X-Hook-Signature)' : '') + '\n');
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main();
