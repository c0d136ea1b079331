import { type Channel, type ChannelModel } from 'amqplib';
import { connectBroker } from '@inventory/events';
import { DEAD_QUEUE, EVENTS_QUEUE, PARK_QUEUE, WORK_QUEUE, retryQueue } from '../delivery/topology';

/** One of the dispatcher's queues as RabbitMQ reports it (null counts: the queue could not be checked). */
export interface QueueDepth {
  queue: string;
  /** What the queue holds, in a few words. */
  role: string;
  /** Messages ready to be taken (not those a consumer holds unacknowledged). */
  messages: number | null;
  consumers: number | null;
  /** Why the counts are missing (the queue does not exist, the broker did not answer). */
  error?: string;
}

export interface QueueDepths {
  /** False when RabbitMQ could not be asked at all (`detail` says why). */
  available: boolean;
  detail?: string;
  queues: QueueDepth[];
}

/** The longest the page waits for RabbitMQ before showing the depths as unavailable. */
const BROKER_DEADLINE_MS = 3_000;

/** The dispatcher's queues (topology.ts), in the order a change travels through them. */
export function webhookQueues(scheduleMs: number[]): Array<Pick<QueueDepth, 'queue' | 'role'>> {
  return [
    { queue: EVENTS_QUEUE.name, role: 'change events to match' },
    { queue: WORK_QUEUE, role: 'attempts to send' },
    ...[...new Set(scheduleMs)].sort((a, b) => a - b).map((ms) => ({ queue: retryQueue(ms), role: `attempts waiting ${formatDelay(ms)} to retry` })),
    { queue: DEAD_QUEUE, role: 'last attempts failed, to record as failed' },
    { queue: PARK_QUEUE, role: 'attempts set aside while their receiver is slow' },
  ];
}

function formatDelay(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 120) return `${Number(s.toFixed(1))} s`;
  return s < 7200 ? `${Number((s / 60).toFixed(1))} min` : `${Number((s / 3600).toFixed(1))} h`;
}

/**
 * Asks RabbitMQ how deep each queue is (a passive declare: `checkQueue`), on a
 * connection of its own, opened for the one page view and closed after it:
 * nothing is held between views, so there is nothing to shut down with the
 * service, and a broker that was down is simply asked again next time.
 */
export async function queueDepths(amqpUrl: string | undefined, queues: Array<Pick<QueueDepth, 'queue' | 'role'>>): Promise<QueueDepths> {
  const unknown = (error: string): QueueDepth[] => queues.map((q) => ({ ...q, messages: null, consumers: null, error }));
  if (!amqpUrl) return { available: false, detail: 'No broker is configured (AMQP_URL).', queues: unknown('no broker') };
  let conn: ChannelModel | null = null;
  let timer: NodeJS.Timeout | undefined;
  const connecting = connectBroker(amqpUrl, { timeout: BROKER_DEADLINE_MS });
  try {
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`RabbitMQ did not answer within ${BROKER_DEADLINE_MS / 1000} s`)), BROKER_DEADLINE_MS);
    });
    conn = await Promise.race([connecting, deadline]);
    conn.on('error', () => undefined); // reported through the calls that fail
    const depths = await Promise.race([checkAll(conn, queues), deadline]);
    return { available: true, queues: depths };
  } catch (err) {
    const detail = `RabbitMQ could not be asked: ${(err as Error).message}`;
    return { available: false, detail, queues: unknown('unavailable') };
  } finally {
    clearTimeout(timer);
    if (conn) await conn.close().catch(() => undefined);
    // one that opens after the deadline is closed when it does
    else void connecting.then((late) => late.close(), () => undefined).catch(() => undefined);
  }
}

/** One channel per run of checks; a missing queue closes it (404), so the next check opens another. */
async function checkAll(conn: ChannelModel, queues: Array<Pick<QueueDepth, 'queue' | 'role'>>): Promise<QueueDepth[]> {
  const out: QueueDepth[] = [];
  let ch: Channel | null = null;
  for (const q of queues) {
    try {
      ch ??= await openChannel(conn);
      const ok = await ch.checkQueue(q.queue);
      out.push({ ...q, messages: ok.messageCount, consumers: ok.consumerCount });
    } catch (err) {
      ch = null;
      const notFound = /NOT_FOUND|404/.test((err as Error).message);
      out.push({ ...q, messages: null, consumers: null, error: notFound ? 'not declared (is the dispatcher running?)' : (err as Error).message });
    }
  }
  return out;
}

async function openChannel(conn: ChannelModel): Promise<Channel> {
  const ch = await conn.createChannel();
  ch.on('error', () => undefined); // a failed check rejects its own call; the channel's error event must not crash the process
  return ch;
}
