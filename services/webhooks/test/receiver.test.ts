import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:net';
import * as path from 'node:path';

const script = path.resolve(__dirname, '../../../deploy/webhook-receiver.js');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('local webhook receiver (deploy/webhook-receiver.js)', () => {
  let child: ChildProcess;
  let output = '';
  let port: number;

  const waitFor = (text: string, timeoutMs = 10_000): Promise<void> =>
    new Promise((resolve, reject) => {
      const started = Date.now();
      const check = (): void => {
        if (output.includes(text)) resolve();
        else if (Date.now() - started > timeoutMs) reject(new Error(`"${text}" not printed; output:\n${output}`));
        else setTimeout(check, 20);
      };
      check();
    });

  beforeAll(async () => {
    port = await freePort();
    child = spawn(process.execPath, [script, '--port', String(port), '--secret', 's3cret'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await waitFor(`Listening for webhooks on http://localhost:${port}/`);
  });

  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  test('when a signed POST arrives, then it answers 200 empty and prints method, path, headers, body and "signature: valid"', async () => {
    const body = '{"event": "created", "model": "site", "data": {"id": 1}}';
    const signature = createHmac('sha512', 's3cret').update(body).digest('hex');
    const res = await fetch(`http://127.0.0.1:${port}/hooks/site?x=1`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Hook-Signature': signature, 'X-Trace': 'trace-123' },
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    await waitFor('signature: valid');
    expect(output).toContain('POST /hooks/site?x=1');
    expect(output).toMatch(/X-Trace: trace-123/i);
    expect(output).toMatch(/Content-Type: application\/json/i);
    expect(output).toContain(body);
  });

  test('when a request is unsigned, then it prints "signature: absent"', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/plain`, { method: 'PUT', body: 'hello receiver' });
    expect(res.status).toBe(200);
    await waitFor('signature: absent');
    expect(output).toContain('PUT /plain');
    expect(output).toContain('hello receiver');
  });

  test('when the signature is wrong, then it prints "signature: invalid"', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/bad`, { method: 'POST', headers: { 'X-Hook-Signature': 'ab'.repeat(64) }, body: '{}' });
    expect(res.status).toBe(200);
    await waitFor('signature: invalid');
    expect(output).toContain('POST /bad');
  });
});
