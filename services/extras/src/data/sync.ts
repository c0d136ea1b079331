import { randomUUID } from 'node:crypto';
import { raw, sql } from '@inventory/filtering';
import type { Identity } from '@inventory/auth';
import type { ServiceContext, Tx, Worker } from '@inventory/rest';
import type { DataSourceSettings } from '../config';
import { fetchSource, INTERRUPTED, readFile, sweepClones, SyncError, walk, type SourceRow } from './fetch';
import type { DataOwn } from './settings';

/**
 * The syncs of data sources (NetBox's `core.jobs.sync_datasource`): a sync
 * is a job row (`core.job`, status `pending`) that any extras replica's
 * worker claims (`FOR UPDATE SKIP LOCKED`), runs and ends: `completed`, or
 * `errored` with its error, the source `completed` (with `last_synced`) or
 * `failed`. Files are read asynchronously, one at a time; their rows are
 * replaced in one transaction (NetBox's DataSource.sync). Like NetBox's
 * `.update()` calls, these writes record no changes and send no events.
 */

const SOURCE_TYPE = 'core.datasource';
/** How often a worker looks for jobs other replicas queued (its own wake it at once). */
const POLL_MS = 5000;
/** A job still `running` this long after it started was lost with its process: it is ended as errored. */
const STALE_MS = 60 * 60 * 1000;

const tables = (ctx: ServiceContext) => ({
  source: raw(ctx.db.table('data_source')),
  file: raw(ctx.db.table('data_file')),
  data: raw(ctx.db.table('data_file_data')),
  job: raw(ctx.db.table('job')),
});

/** Queues a sync of the source (NetBox's enqueue_sync_job): the source `queued`, a pending job; returns the job's id. */
export async function enqueueSync(ctx: ServiceContext, tx: Tx, sourceId: number, identity: Identity): Promise<number> {
  const t = tables(ctx);
  await tx.query(sql`UPDATE ${t.source} SET status = 'queued' WHERE id = ${sourceId}`);
  const [row] = await tx.query(sql`
    INSERT INTO ${t.job} (object_type, object_id, name, status, created, user_id, error, job_id)
    VALUES (${SOURCE_TYPE}, ${sourceId}, '', 'pending', now(), ${identity.user?.id ?? null}, '', ${randomUUID()})
    RETURNING id`);
  return Number(row.id);
}

/** What runs once a source's files are synced (the objects that copy them: synced.ts); its counts go in the job's data. */
export type AfterSync = (sourceId: number) => Promise<Record<string, number>>;

/** The worker that runs queued syncs, one at a time per instance. */
export function syncWorker(ctx: ServiceContext, settings: DataSourceSettings, afterSync?: AfterSync): Worker {
  syncMetrics(ctx);
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = true;
  // a stop cuts a sync short (a clone is killed): its job ends errored rather than holding the shutdown
  let abort = new AbortController();
  const drain = async () => {
    do {
      again = false;
      try {
        await endStale(ctx);
        while (!stopped && (await runNext(ctx, settings, abort.signal, afterSync)));
      } catch (err) {
        ctx.log.error({ err }, 'data source sync worker failed; retrying at the next poll');
      }
    } while (again && !stopped);
  };
  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain().finally(() => {
      running = null;
    });
  };
  return {
    start() {
      stopped = false;
      abort = new AbortController();
      const own = ctx.own as Partial<DataOwn> | undefined;
      if (own) own.wake = wake;
      // clones a crashed process left in the temporary folder (long past any clone's timeout)
      void sweepClones(STALE_MS).catch((err: unknown) => ctx.log.warn({ err }, 'could not sweep old git clones'));
      wake();
      timer = setInterval(wake, POLL_MS);
      timer.unref();
    },
    async stop() {
      stopped = true;
      abort.abort();
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}

/** Jobs left `running` by a process that went away: errored, their sources failed. */
async function endStale(ctx: ServiceContext): Promise<void> {
  const t = tables(ctx);
  const ended = await ctx.db.query(sql`
    UPDATE ${t.job} SET status = 'errored', completed = now(), error = 'The sync was interrupted (its process stopped).'
     WHERE object_type = ${SOURCE_TYPE} AND status = 'running' AND started < now() - ${`${STALE_MS} milliseconds`}::interval
    RETURNING object_id`);
  if (ended.length) await ctx.db.query(sql`UPDATE ${t.source} SET status = 'failed' WHERE id = ANY(${ended.map((r) => Number(r.object_id))}::bigint[]) AND status = 'syncing'`);
}

/** Claims and runs the oldest pending sync; false when there was none. */
export async function runNext(ctx: ServiceContext, settings: DataSourceSettings, signal?: AbortSignal, afterSync?: AfterSync): Promise<boolean> {
  const t = tables(ctx);
  const [job] = await ctx.db.query(sql`
    UPDATE ${t.job} SET status = 'running', started = now()
     WHERE id = (SELECT id FROM ${t.job}
                  WHERE object_type = ${SOURCE_TYPE} AND status = 'pending' AND (scheduled IS NULL OR scheduled <= now())
                  ORDER BY created, id LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING id, object_id`);
  if (!job) return false;
  const jobId = Number(job.id);
  const sourceId = Number(job.object_id);
  const { syncs, duration } = syncMetrics(ctx);
  const stopTimer = duration.startTimer();
  try {
    const counts: Record<string, number> = { ...(await syncSource(ctx, settings, sourceId, signal)) };
    if (afterSync) Object.assign(counts, await afterSync(sourceId));
    await ctx.db.query(sql`UPDATE ${t.job} SET status = 'completed', completed = now(), data = ${JSON.stringify(counts)}::jsonb WHERE id = ${jobId}`);
    ctx.log.info({ source: sourceId, job: jobId, ...counts }, 'data source synced');
    syncs.inc({ outcome: 'completed' });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (!(err instanceof SyncError)) ctx.log.error({ err, source: sourceId, job: jobId }, 'data source sync failed');
    await ctx.db.query(sql`UPDATE ${t.job} SET status = 'errored', completed = now(), error = ${message} WHERE id = ${jobId}`);
    await ctx.db.query(sql`UPDATE ${t.source} SET status = 'failed' WHERE id = ${sourceId}`);
    syncs.inc({ outcome: 'errored' });
  } finally {
    stopTimer();
  }
  return true;
}

/** The instance's sync figures (docs/deploying.md): made once per registry. */
function syncMetrics(ctx: ServiceContext) {
  return {
    syncs: ctx.metrics.counter('inventory_data_source_syncs_total', 'Data source syncs run by this instance, by outcome: completed, errored.', ['outcome']),
    duration: ctx.metrics.histogram('inventory_data_source_sync_duration_seconds', 'Time a data source sync took, from its claim to its end (clone, walk, reads, writes).', [], [0.1, 0.5, 1, 5, 15, 60, 180, 600]),
  };
}

interface SyncCounts {
  created: number;
  updated: number;
  deleted: number;
}

/** NetBox's DataSource.sync: the source's files read, its data files created, updated (a new hash) and deleted. */
async function syncSource(ctx: ServiceContext, settings: DataSourceSettings, sourceId: number, signal?: AbortSignal): Promise<SyncCounts> {
  const t = tables(ctx);
  const [source] = (await ctx.db.query(sql`SELECT id, name, type, source_url, parameters, ignore_rules FROM ${t.source} WHERE id = ${sourceId}`)) as unknown as SourceRow[];
  if (!source) throw new SyncError(`Data source ${sourceId} no longer exists.`);
  await ctx.db.query(sql`UPDATE ${t.source} SET status = 'syncing' WHERE id = ${sourceId}`);
  const fetched = await fetchSource(source, settings, signal);
  try {
    const files = await walk(fetched.root, String(source.ignore_rules ?? ''), settings, signal);
    const counts = await ctx.db.transaction(async (tx) => {
      const known = new Map((await tx.query(sql`SELECT id, path, hash FROM ${t.file} WHERE source_id = ${sourceId} FOR UPDATE`)).map((r) => [String(r.path), { id: Number(r.id), hash: String(r.hash) }]));
      const out: SyncCounts = { created: 0, updated: 0, deleted: 0 };
      for (const file of files) {
        if (signal?.aborted) throw new SyncError(INTERRUPTED);
        const { data, hash } = await readFile(file, fetched.root, settings);
        const had = known.get(file.path);
        if (had && had.hash === hash) continue;
        if (had) {
          await tx.query(sql`UPDATE ${t.file} SET size = ${data.length}, hash = ${hash}, last_updated = now(), _version = _version + 1 WHERE id = ${had.id}`);
          await tx.query(sql`UPDATE ${t.data} SET data = ${data} WHERE file_id = ${had.id}`);
          out.updated++;
        } else {
          const [row] = await tx.query(sql`
            INSERT INTO ${t.file} (source_id, path, size, hash, created, last_updated) VALUES (${sourceId}, ${file.path}, ${data.length}, ${hash}, now(), now()) RETURNING id`);
          await tx.query(sql`INSERT INTO ${t.data} (file_id, data) VALUES (${Number(row.id)}, ${data})`);
          out.created++;
        }
      }
      const gone = await tx.query(sql`DELETE FROM ${t.file} WHERE source_id = ${sourceId} AND NOT (path = ANY(${files.map((f) => f.path)}::text[])) RETURNING id`);
      out.deleted = gone.length;
      await tx.query(sql`UPDATE ${t.source} SET status = 'completed', last_synced = now() WHERE id = ${sourceId}`);
      return out;
    });
    return counts;
  } finally {
    await fetched.cleanup();
  }
}
