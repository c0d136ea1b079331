'use strict';
/**
 * What RESULTS.md shows of each result file: one extractor per benchmark maps its JSON (each
 * script has its own shape) to rows
 *   { figure, value, unit, goal?: { op, value } | { text, met }, anchor?, beside? }
 * `goal.op` is '<', '<=', '>', '>=' or '=' against a number; a goal that is not a number ("constant
 * in the page size") carries its own `met`. `anchor` is NetBox's or Nautobot's figure where the
 * benchmark names one; `beside` is what was measured in the same run to compare with (a baseline,
 * the before side, the HTTP floor, another index kind) or how the figure was taken.
 * The goals are the issues' (as each script's header and bench/README.md state them).
 */

const round = (x, d = 2) => (typeof x === 'number' ? Math.round(x * 10 ** d) / 10 ** d : x);

/** 1234.5 -> '1,235'; 12.34 -> '12.3'; 0.5453 -> '0.545' */
function format(v) {
  if (typeof v !== 'number') return String(v ?? '');
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  const digits = Number.isInteger(v) || a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return v.toLocaleString('en-US', { maximumFractionDigits: digits });
}
/** A ratio: '429×', '1.6×', '0.017×' */
const times = (x) => `${x >= 10 ? Math.round(x) : x >= 1 ? round(x, 1) : Number(x.toPrecision(2))}×`;
const plural = (n, word) => `${format(n)} ${word}${n === 1 ? '' : 's'}`;
const lt = (value) => ({ op: '<', value });
const atLeast = (value) => ({ op: '>=', value });
const atMost = (value) => ({ op: '<=', value });
const none = (value) => ({ op: '=', value });
/** '4000-9000' (ms) -> '4–9' (s) */
const seconds = (ms) => String(ms).replace(/\d+/g, (n) => String(Number(n) / 1000)).replace('-', '–');

/** Whether a row meets its goal (null: no goal). */
function met(row) {
  const g = row.goal;
  if (!g) return null;
  if ('met' in g) return g.met;
  const v = row.value;
  if (typeof v !== 'number') return null;
  return { '<': v < g.value, '<=': v <= g.value, '>': v > g.value, '>=': v >= g.value, '=': v === g.value }[g.op];
}

const tenantsList = (r) => ({
  title: 'Tenants list: service, gateway and a bare baseline',
  about: `${r.request}; ${r.load.connections} connections, ${r.load.seconds} s per round after ${r.load.warmup_seconds} s warm-up, ${r.load.rounds} interleaved rounds, the median round.`,
  rows: [
    { figure: 'service / baseline (requests/s)', value: r.service_vs_baseline, unit: '×', goal: atLeast(r.goals.service_vs_baseline), beside: `service ${r.results.service.rps} req/s, baseline (bare http + pg) ${r.results.baseline.rps} req/s` },
    { figure: 'gateway / direct (requests/s)', value: r.gateway_vs_direct, unit: '×', goal: atLeast(r.goals.gateway_vs_direct), beside: `gateway ${r.results.gateway.rps} req/s, direct ${r.results.service.rps} req/s` },
    ...['baseline', 'service', 'gateway'].map((s) => ({ figure: `${s}: requests/s`, value: r.results[s].rps, unit: 'req/s', beside: `p50 ${format(r.results[s].p50_ms)} ms, p99 ${format(r.results[s].p99_ms)} ms; rounds ${r.results[s].rounds_rps.join(', ')}` })),
  ],
});

/** before-after.js's report, under the goals of the comparison it was run for. */
const beforeAfter = (listGoal, bulkGoal, title) => (r) => ({
  title,
  about: `Before: ${r.before}; after: ${r.after}${r.after_relays_to_rabbitmq ? ' relaying every event to RabbitMQ' : ''}. ${r.method}.`,
  rows: [
    { figure: 'tenants list: after / before (requests/s)', value: r.list_after_vs_before, unit: '×', goal: listGoal && atLeast(listGoal), beside: `after ${r.list_rps.after} req/s, before ${r.list_rps.before} req/s` },
    { figure: 'bulk create of 1,000 tenants: after / before (time)', value: r.bulk_time_after_vs_before, unit: '×', goal: atMost(bulkGoal), beside: `after ${format(round(r.bulk_create_ms.after, 0))} ms, before ${format(round(r.bulk_create_ms.before, 0))} ms` },
  ],
});

const events = (r) => ({
  title: 'Outbox relay',
  about: `${r.relay_max_rate.backlog.toLocaleString('en-US')} events in the outbox, then ${r.commit_to_delivery_ms.writes_per_second} writes/s for ${r.commit_to_delivery_ms.seconds} s; ${r.commit_to_delivery_ms.note}.`,
  rows: [
    { figure: 'relay publish rate from a backlog', value: r.relay_max_rate.events_per_second, unit: 'events/s', goal: atLeast(r.relay_max_rate.goal) },
    { figure: `commit to delivery p99 at ${r.commit_to_delivery_ms.writes_per_second} writes/s`, value: r.commit_to_delivery_ms.p99, unit: 'ms', goal: lt(r.commit_to_delivery_ms.goal_p99), beside: `p50 ${format(r.commit_to_delivery_ms.p50)} ms, max ${format(r.commit_to_delivery_ms.max)} ms; ${r.commit_to_delivery_ms.delivered} of ${r.commit_to_delivery_ms.writes} delivered` },
  ],
});

const projections = (r) => {
  const page = r.sites_page_1000;
  const constant = page.sql_statements_per_page.length === 1 && page.sql_statements_per_page[0] === page.sql_statements_page_of_10;
  return {
    title: 'References across services (projections)',
    about: `${r.sites.toLocaleString('en-US')} sites in dcim, each naming its own tenant (tenancy) and a region; tenancy, extras and dcim as separate processes.`,
    rows: [
      { figure: 'SQL statements per sites page (1,000 rows / 10 rows)', value: `${page.sql_statements_per_page.join(', ')} / ${page.sql_statements_page_of_10}`, unit: '', goal: { text: 'constant', met: constant } },
      { figure: 'HTTP calls per sites page', value: page.http_calls_per_page, unit: '', goal: none(0), beside: page.same_answer_with_tenancy_stopped ? 'the same page answered with tenancy stopped' : 'the page changed with tenancy stopped' },
      { figure: 'GET sites ?limit=1000', value: page.median_ms, unit: 'ms', beside: 'median of 5 pages' },
      { figure: 'GET sites ?tenant_group=<root>&limit=50', value: r.tenant_group_root_limit_50.median_ms, unit: 'ms', beside: `${r.tenant_group_root_limit_50.sql_statements} statements` },
      { figure: 'GET sites ?ordering=tenant&limit=50', value: r.ordering_tenant_limit_50.median_ms, unit: 'ms', beside: `${r.ordering_tenant_limit_50.sql_statements} statements` },
      { figure: `projection lag p99 (tenant rename to dcim's copy, ${r.projection_lag_ms.renames} renames)`, value: r.projection_lag_ms.p99, unit: 'ms', goal: lt(50), beside: `p50 ${format(r.projection_lag_ms.p50)} ms, max ${format(r.projection_lag_ms.max)} ms` },
      ...(r.projection_burst
        ? [
            {
              figure: `a burst: dcim's copy complete after the last of ${r.projection_burst.updates.toLocaleString('en-US')} tenant updates (bulk PATCHes of 1,000)`,
              value: r.projection_burst.applied_after_last_write_ms,
              unit: 'ms',
              beside: `the PATCHes took ${format(r.projection_burst.writes_ms)} ms; ${format(r.projection_burst.events_per_s)} events/s from the first PATCH to the last applied`,
            },
          ]
        : []),
    ],
  };
};

const webhooks = (r) => {
  const l = r.latency_commit_to_receiver;
  // the code before, run just before on the same machine, when the result carries it
  const was = r.before_interleaved;
  const wasLatency = (key) => (was ? `; before, same session: p99 ${format(was.latency_commit_to_receiver[key].p99_ms)} ms at ${was.latency_commit_to_receiver[key].achieved_writes_per_s}/s` : '');
  const latency = (label, key, goal) => ({
    figure: `commit to receiver p99 at ${label} (reached ${l[key].achieved_writes_per_s}/s)`,
    value: l[key].p99_ms,
    unit: 'ms',
    goal: goal && lt(100),
    beside: `p50 ${format(l[key].p50_ms)} ms; ${l[key].delivered} of ${l[key].writes} delivered${wasLatency(key)}`,
  });
  const d = r.dispatcher_throughput;
  const wasThroughput = was ? `; before, same session: ${was.dispatcher_throughput.deliveries_per_s.toLocaleString('en-US')}/s` : '';
  return {
    title: 'Webhooks',
    about: 'tenancy, extras and webhooks as separate processes; one signed webhook on tenant creates; a receiver on loopback answering 200 at once.',
    rows: [
      latency('100/s, single POSTs', 'at_100_per_s', false),
      latency('500/s, single POSTs', 'at_500_per_s', true),
      latency('500/s, POSTs of 10', 'at_500_per_s_in_posts_of_10', true),
      { figure: `one dispatcher's deliveries/s (a backlog of ${d.backlog.toLocaleString('en-US')})`, value: d.deliveries_per_s, unit: 'deliveries/s', goal: atLeast(2000), beside: `${d.delivered} delivered in ${d.seconds_from_ready_to_last} s from the dispatcher's start${wasThroughput}` },
      { figure: 'deliveries repeated at the receiver', value: r.receiver.requests - r.receiver.distinct_delivery_ids, unit: '', goal: none(0), beside: `${r.receiver.requests} requests` },
    ],
  };
};

const dcim = (r) => {
  const read = (name) => r.reads.find((x) => x.name === name);
  const loaded = (x) => `under load ${x.requests_per_s} req/s, p50 ${format(x.p50_ms)} ms; ${plural(x.queries, 'statement')}`;
  const devices = read('devices, complete with config contexts');
  const interfaces = read('interfaces of 21 devices');
  const create = r.bulk_create_100_devices_48_interfaces_ms;
  return {
    title: 'The inventory: devices, interfaces, config contexts, cable paths',
    about: `${r.devices.toLocaleString('en-US')} devices with ${r.interfaces.toLocaleString('en-US')} interfaces, ${r.config_contexts} config contexts; tenancy, extras and dcim as separate processes. Read times are one request at a time (median of 7).`,
    rows: [
      { figure: `POST of 100 devices + 4,800 interfaces, p50 of ${create.requests} (quiet)`, value: create.p50, unit: 'ms', goal: lt(create.goal), anchor: `NetBox ${seconds(create.netbox)} s`, beside: `max ${format(create.max)} ms${r.bulk_create_back_to_back_ms ? `; back to back (events of earlier requests still consumed): p50 ${format(r.bulk_create_back_to_back_ms.p50)} ms` : ''}` },
      { figure: 'GET devices ?limit=1000, complete with config contexts', value: devices.single_ms_median, unit: 'ms', goal: lt(r.goals.devices_1000_ms), anchor: `NetBox about ${seconds(r.netbox.devices_1000_with_config_contexts_ms)} s`, beside: loaded(devices) },
      { figure: 'GET interfaces ?device_id=… (21 devices) &limit=1000', value: interfaces.single_ms_median, unit: 'ms', goal: lt(r.goals.interfaces_1000_ms), anchor: `NetBox ${seconds(r.netbox.interfaces_1000_ms)} s`, beside: loaded(interfaces) },
      ...r.reads
        .filter((x) => x !== devices && x !== interfaces)
        .map((x) => ({ figure: `GET ${x.name}`, value: x.single_ms_median, unit: 'ms', beside: loaded(x) })),
      ...r.reads
        .filter((x) => x.queries_small_page !== undefined)
        .map((x) => ({ figure: `statements: ${x.name} (page of ${x.objects} / small page)`, value: `${x.queries} / ${x.queries_small_page}`, unit: '', goal: { text: 'constant', met: x.queries === x.queries_small_page } })),
    ],
  };
};

const ipamIndex = (r) => {
  const kinds = Object.keys(r.kinds).filter((k) => k !== 'btree');
  const label = { btree_covering: 'covering', gist: 'GiST', spgist: 'SP-GiST' };
  return {
    title: 'IP address and prefix indexes (decision 019)',
    about: `Scratch tables: ${r.data.addresses.toLocaleString('en-US')} addresses, ${r.data.prefixes.toLocaleString('en-US')} prefixes; p50 over ${r.runs} runs under each index kind, the same answers checked across kinds. The btrees were chosen; beside them, each other kind's time as a multiple of the btree's.`,
    rows: Object.entries(r.kinds.btree.queries).map(([q, x]) => ({
      figure: `btree: ${q.replace(/_/g, ' ')}`,
      value: x.p50_ms,
      unit: 'ms',
      beside: kinds.map((k) => `${label[k] ?? k} ${times(r.kinds[k].queries[q].p50_ms / x.p50_ms)}`).join(', '),
    })),
  };
};

const ipamFirstFree = (r) => ({
  title: 'First free IP with the block-usage summary',
  about: `Scratch tables of ${r.data.addresses.toLocaleString('en-US')} addresses; each search with the summary beside the plain walk (same answers checked). The goal's figure is the service's search in "ipam at 1,000,000 addresses" below.`,
  rows: [
    ...Object.entries(r.queries).map(([q, x]) => ({
      figure: `${q.replace(/_/g, ' ')}, p50 with the summary`,
      value: x.with_summary.p50_ms,
      unit: 'ms',
      beside: `plain walk ${format(x.plain_walk.p50_ms)} ms (${times(x.plain_walk.p50_ms / x.with_summary.p50_ms)})`,
    })),
    { figure: 'bulk insert of 1,000 addresses with the summary kept (SQL)', value: r.bulk_create_sql.insert_1000_and_summary_p50_ms, unit: 'ms', beside: `the insert alone ${format(r.bulk_create_sql.insert_1000_p50_ms)} ms` },
    ...(r.bulk_create_service
      ? [{ figure: `POST of 1,000 addresses over ${format(r.bulk_create_service.addresses_stored)} stored, p50 of ${r.bulk_create_service.requests}`, value: r.bulk_create_service.p50_ms, unit: 'ms', goal: lt(1000), beside: `max ${format(r.bulk_create_service.max_ms)} ms` }]
      : []),
  ],
});

const ipam = (r) => {
  const read = (prefix) => r.reads.find((x) => x.name.startsWith(prefix));
  const s = r.searches;
  const loaded = (x) => `p99 ${format(x.sequential.p99_ms)} ms; under load ${x.loaded.requests_per_s} req/s; ${plural(x.queries, 'statement')}`;
  const firstFree = read('first free IP');
  const floor = r.http_floor.sequential.p50_ms;
  const lists = [read('ip-addresses ?parent'), read('prefixes ?within')];
  const c = r.concurrent_allocations;
  return {
    title: 'ipam at 1,000,000 addresses and 100,000 prefixes',
    about: `The ipam service as its own process; rows loaded set-based in SQL (see bench/README.md); ${round(r.load.data.used_fraction_of_8 * 100, 1)} % of 10.0.0.0/8 used. p50 of ${firstFree.sequential.n} sequential requests.`,
    rows: [
      { figure: 'first free IP of the 99 % used /8: the search (no HTTP), p50', value: s.first_free_ip_of_the_8.p50_ms, unit: 'ms', goal: lt(r.goals.first_free_ip_search_p50_ms), anchor: `NetBox ${seconds(r.others.netbox_first_free_ip_ms)} s; Nautobot ${format(r.others.nautobot_first_free_ip_ms)} ms`, beside: `p99 ${format(s.first_free_ip_of_the_8.p99_ms)} ms` },
      { figure: 'the same over HTTP (available-ips ?limit=1), p50', value: firstFree.sequential.p50_ms, unit: 'ms', beside: `${times(firstFree.sequential.p50_ms / floor)} the HTTP floor (rirs ?limit=1: ${format(floor)} ms); ${loaded(firstFree)}` },
      { figure: '50 free IPs of the /8: the search, p50', value: s.free_ips_50_of_the_8.p50_ms, unit: 'ms', beside: `over HTTP ${format(read('50 free IPs').sequential.p50_ms)} ms` },
      { figure: 'available-prefixes of the /8 (10,000 children), p50', value: read('available-prefixes').sequential.p50_ms, unit: 'ms', beside: `the search alone ${format(s.available_prefixes_of_the_8.p50_ms)} ms; ${read('available-prefixes').objects} blocks` },
      ...lists.map((x) => ({ figure: `GET ${x.name}, p50`, value: x.sequential.p50_ms, unit: 'ms', goal: lt(r.goals.lists_1000_ms), beside: loaded(x) })),
      { figure: `bulk create of 1,000 addresses in one POST, p50 of ${r.bulk_create_1000_addresses.requests}`, value: r.bulk_create_1000_addresses.p50_ms, unit: 'ms', goal: lt(r.goals.bulk_create_1000_ms), beside: `max ${format(r.bulk_create_1000_addresses.max_ms)} ms; ${r.bulk_create_1000_addresses.queries} statements` },
      { figure: `${c.clients} clients allocating at once (POST available-ips)`, value: c.allocations_per_s, unit: 'allocations/s', beside: `p50 ${format(c.latency.p50_ms)} ms; ${c.queries} statements each` },
      { figure: 'addresses handed out twice', value: c.allocations - c.distinct_addresses, unit: '', goal: none(0), beside: `${c.allocations} allocations` },
    ],
  };
};

/** V8's heap at the load's end, and what was live after a full collection (when measured). */
const heap = (u) =>
  u?.load_end ? `; V8 heap at the load's end ${u.load_end.heapTotal} MB (${u.load_end.heapUsed} used)${u.after_full_gc ? `, live after a full GC ${u.after_full_gc.heapUsed} MB` : ''}` : '';

const memory = (r) => ({
  title: 'Resident memory of each process',
  about: `${r.method}.`,
  rows: [
    ...Object.entries(r.processes).map(([name, p]) => ({
      figure: `${name}: peak RSS under load`,
      value: p.loaded_peak_mb,
      unit: 'MB',
      goal: lt(r.goal_mb),
      beside: `idle ${p.idle_mb}, loaded median ${p.loaded_median_mb}, VmHWM ${p.high_water_mark_mb}, after the load ${p.after_mb} MB${heap(p.node_memory_usage_mb)}`,
    })),
    { figure: 'requests that failed during the load', value: r.load.errors, unit: '', goal: none(0), beside: `${r.load.requests} requests, ${r.load.requests_per_s} req/s; ${r.load.writes} writes, ${r.load.object_changes_recorded} change records, ${r.load.webhook_deliveries_received} webhook deliveries` },
  ],
});

const consistency = (r) => {
  const w = r.write_latency_ms;
  const lag = (x) => (x.without.readers_had_it_after_the_answer_ms ? `; without, dcim and extras had it ${format(x.without.readers_had_it_after_the_answer_ms.p50)} ms (p50) after the answer` : '');
  const sides = (x) =>
    `with p50 ${format(x.with.p50)} / p99 ${format(x.with.p99)} ms, without p50 ${format(x.without.p50)} / p99 ${format(x.without.p99)} ms (${x.with.n} each)${lag(x)}${x.with.pending_answers ? `; with: ${x.with.pending_answers} answered with X-Consistency-Pending` : ''}`;
  const log = r.extras_change_log?.with;
  const patchLog = log ? `; the tenant had ${format(log.changes_of_the_patched_tenant)} changes at the end` : '';
  // extras' change log refreshes every earlier row of an object on each of its changes: the loops' tenants gather changes as the run goes
  const logUpdates = log ? `; extras updated ${format(log.rows_updated)} change-log rows in all (${format(log.rows)} rows)` : '';
  const trend = (x) => (x.write_p50_ms_by_1000_pairs?.length > 1 ? `; write p50 by 1,000 pairs ${x.write_p50_ms_by_1000_pairs.map(format).join(', ')} ms` : '');
  const on = r.stale_reads.with_guarantee;
  const off = r.stale_reads.without_guarantee;
  const pending = Object.entries(on.pending_services ?? {}).map(([s, n]) => `${s} ${n}`).join(', ');
  return {
    title: 'Read-your-writes across services: its cost and stale reads',
    about: `${r.method}. Stale reads: ${r.stale_reads.method}.`,
    rows: [
      { figure: 'single POST of a tenant: p50 with the guarantee − without', value: w.single_post.p50_cost_ms, unit: 'ms', goal: lt(r.goals.single_write_p50_cost_ms), beside: sides(w.single_post) },
      { figure: 'PATCH of a tenant 10 sites name: p50 with − without', value: w.patch_named_by_10_sites.p50_cost_ms, unit: 'ms', goal: lt(r.goals.single_write_p50_cost_ms), beside: `${sides(w.patch_named_by_10_sites)}${patchLog}` },
      { figure: 'bulk POST of 1,000 tenants: p50 with / without', value: w.bulk_post_1000.p50_with_vs_without, unit: '×', goal: lt(r.goals.bulk_1000_with_vs_without_p50), beside: sides(w.bulk_post_1000) },
      { figure: `stale reads with the guarantee (rename, then read a site from dcim on a new connection; ${format(on.pairs)} pairs)`, value: on.stale, unit: '', goal: none(r.goals.stale_reads_with_guarantee), beside: `${on.loops} loops at once, ${format(on.pairs_per_s)} pairs/s; write p50 ${format(on.write_ms.p50)} ms, read p50 ${format(on.read_ms.p50)} ms${trend(on)}${logUpdates}${on.write_errors + on.read_errors ? `; ${on.write_errors + on.read_errors} failed requests` : ''}` },
      { figure: 'of those, answers with X-Consistency-Pending', value: on.pending_answers, unit: '', beside: pending || 'none' },
      { figure: `stale reads without the guarantee (${format(off.pairs)} pairs)`, value: off.stale, unit: '', beside: `${round((off.stale / off.pairs) * 100, 1)} % of the reads: the measurement sees staleness; write p50 ${format(off.write_ms.p50)} ms, read p50 ${format(off.read_ms.p50)} ms, ${format(off.pairs_per_s)} pairs/s${off.readers_caught_up_after_last_answer_ms !== undefined ? `; the readers had every write ${format(off.readers_caught_up_after_last_answer_ms)} ms after the last answer` : ''}` },
    ],
  };
};
const brokerOutage = (r) => ({
  title: 'Writes through a broker outage',
  about: `${r.method}; RabbitMQ took ${format(r.broker.stop_ms)} ms to stop, was down ${format(r.broker.down_ms)} ms and took ${format(r.broker.restart_ms)} ms to start again.`,
  rows: [
    { figure: 'write p99 while RabbitMQ is down', value: r.write_ms.outage.p99, unit: 'ms', goal: lt(r.goal_outage_p99_ms), beside: `p50 ${format(r.write_ms.outage.p50)} ms over ${plural(r.write_ms.outage.writes, 'write')}; before the outage p50 ${format(r.write_ms.before.p50)} ms, p99 ${format(r.write_ms.before.p99)} ms; after it p50 ${format(r.write_ms.after.p50)} ms, p99 ${format(r.write_ms.after.p99)} ms` },
    { figure: 'writes not answered 201', value: r.failed_writes, unit: '', goal: none(0) },
    { figure: 'events not delivered after the restart', value: r.events.written - r.events.delivered, unit: '', goal: none(0), beside: `${format(r.events.delivered)} of ${format(r.events.written)} delivered, ${plural(r.events.duplicates, 'duplicate')}` },
  ],
});

const deviceTypes = (r) => {
  const { first, again, extrapolated: x } = r;
  const slowest = [...first.requests].sort((a, b) => b.ms - a.ms)[0];
  return {
    title: 'The device-type library imported (issue 25)',
    about: `${r.library}: ${first.files} files (${first.imported} imported, ${first.skipped} refused by the library's schema or NetBox's rules), through the gateway with a token, into an empty inventory; users, extras and dcim as separate processes. Load average ${r.machine.load_average_1m} on ${r.machine.cpus} CPUs during the run.`,
    rows: [
      { figure: 'the subset imported (read, validated, written)', value: first.seconds, unit: 's', goal: lt(r.goals.subset_seconds), beside: `read and validated ${format(first.read_validate_s)} s, written ${format(first.write_s)} s; ${format(first.files_per_s)} files/s` },
      { figure: 'objects written per second', value: first.objects_per_s, unit: 'objects/s', beside: `${format(first.objects_written)} objects in ${first.write_requests} requests; slowest: ${slowest.what} of ${format(slowest.objects)} in ${format(slowest.ms)} ms` },
      { figure: 'the same folder again: objects written', value: again.objects_written, unit: '', goal: none(0), beside: `${format(again.seconds)} s, ${format(again.files_per_s)} files/s, ${again.read_requests} list requests` },
      { figure: `the whole library extrapolated (${format(x.types)} types, about ${format(x.objects)} objects)`, value: x.seconds, unit: 's', beside: x.how },
    ],
  };
};

const importNetbox = (r) => {
  const inv = r.inventory;
  const rate = (m) => r.models.find((x) => x.model === m) ?? { objects_per_s: 0, objects: 0, seconds: 0 };
  const named = ['dcim.interfaces', 'ipam.ip-addresses', 'dcim.devices', 'dcim.cables'];
  return {
    title: 'Importing from NetBox (issue 25)',
    about: `npm run import between two instances of ours: ${format(inv.devices)} devices, ${format(inv.interfaces)} interfaces, ${format(inv.addresses)} addresses, ${format(inv.cables)} cables (${format(r.objects)} objects) copied with their ids, pages of ${r.page_size ?? 500}, ${r.concurrency ?? 1} at a time; each instance's services in one process, its gateway in another. Load average ${r.machine?.load_average_1m ?? '?'} on ${r.cpus} CPUs.`,
    rows: [
      { figure: 'the issue\'s inventory (10,000 devices, 480,000 interfaces, 100,000 addresses, 10,000 cables), extrapolated', value: r.extrapolated_10000_devices_minutes, unit: 'min', goal: lt(r.goal_minutes), beside: r.extrapolation ?? 'from the objects/s of this run' },
      { figure: 'the scaled inventory imported', value: r.import_seconds, unit: 's', beside: `${format(Math.round(r.objects / r.import_seconds))} objects/s over the whole run` },
      ...named.map((m) => ({ figure: `${m} copied per second`, value: rate(m).objects_per_s, unit: 'objects/s', beside: `${format(rate(m).objects)} in ${format(rate(m).seconds)} s` })),
      { figure: 'verify: differences after the import', value: r.verify_differences, unit: '', goal: none(0), beside: `${format(r.verify_seconds)} s, every object's representation on both sides` },
      { figure: 'the same import again: objects written', value: r.second_import_writes, unit: '', goal: none(0), beside: `${format(r.second_import_seconds)} s` },
    ],
  };
};

const graphql = (r) => {
  const q = r.graphql;
  const small = r.graphql_small_page;
  const rest = (x) => `${plural(x.requests, 'request')}, ${plural(x.statements, 'statement')}`;
  return {
    title: 'GraphQL against REST (issue 26)',
    about: `${r.devices.toLocaleString('en-US')} devices with ${r.interfaces.toLocaleString('en-US')} interfaces and ${r.addresses.toLocaleString('en-US')} addresses; users, tenancy, extras, dcim, ipam and the gateway as separate processes, through the gateway with a token. GraphQL: one query, median of ${r.runs}; REST: every request of a client that fetches the same data, 8 at a time.`,
    rows: [
      { figure: `GraphQL: ${format(q.devices)} devices with interfaces, addresses, site and tenant, one query`, value: q.ms_median, unit: 'ms', goal: lt(r.rest_walk.ms), beside: `${plural(q.statements, 'statement')}, ${plural(q.service_calls, 'service call')}; the goal: REST walking the relations` },
      { figure: 'REST walking the relations (devices, then each device\'s interfaces and addresses)', value: r.rest_walk.ms, unit: 'ms', beside: rest(r.rest_walk) },
      { figure: 'REST paging whole lists at 1,000 (the client joins them)', value: r.rest_pages.ms, unit: 'ms', beside: `${rest(r.rest_pages)}${r.rest_pages.runs ? `; median of ${r.rest_pages.runs.length}, each right after a GraphQL run` : ''}` },
      { figure: 'REST paging whole lists / GraphQL (one run)', value: r.graphql_vs_rest_pages, unit: '×', goal: { op: '>', value: 1 }, beside: 'the goal (issue 26): the query faster than the REST calls that fetch the same data' },
      {
        figure: `GraphQL statements and service calls: ${format(q.devices)} / ${format(small.devices)} devices`,
        value: `${q.statements} / ${small.statements}`,
        unit: '',
        goal: { text: 'constant', met: q.statements === small.statements && q.service_calls === small.service_calls },
        beside: `service calls ${q.service_calls} / ${small.service_calls}`,
      },
    ],
  };
};

const asOf = (r) => ({
  title: 'Time travel: as_of reads and the cost of history (issue 27)',
  about: `${r.sites.toLocaleString('en-US')} sites in dcim, each changed ${r.changes_per_site} times (${r.history_rows.toLocaleString('en-US')} versions); pages as of the moment after change ${Math.ceil(r.changes_per_site / 2)} against the same pages now, ${r.runs} interleaved runs, medians; writes with the site table's history triggers off and on, interleaved in pairs of alternating order.`,
  rows: [
    ...r.pages.map((p) => ({
      figure: `GET sites ?${p.query}: as_of / now`,
      value: p.ratio,
      unit: '×',
      goal: atMost(r.goals.as_of_vs_now),
      beside: `${format(p.as_of_ms)} ms vs ${format(p.now_ms)} ms; statements ${p.statements.as_of} vs ${p.statements.now}`,
    })),
    { figure: 'statements: as_of page = current page', value: r.pages.every((p) => p.statements.as_of === p.statements.now) ? 'equal' : 'differ', unit: '', goal: { text: 'equal', met: r.pages.every((p) => p.statements.as_of === p.statements.now) } },
    ...[['bulk_create_1000', 'bulk create of 1,000 sites'], ['bulk_update_1000', 'bulk PATCH of 1,000 sites']].map(([k, label]) => ({
      figure: `history's cost on a ${label}`,
      value: r[k].overhead_pct,
      unit: '%',
      goal: atMost(r.goals.history_overhead_pct),
      beside: `${format(r[k].with_history_ms)} ms with history, ${format(r[k].without_ms)} ms without${r[k].history_statements_ms === undefined ? '' : `; the history's own statements ${format(r[k].history_statements_ms)} ms (${r[k].history_statements_pct} % of the write without)`}`,
    })),
  ],
});

/** Result file name -> extractor. The order is RESULTS.md's. */
const EXTRACTORS = {
  'tenants-list': tenantsList,
  'before-after': beforeAfter(1.0, 1.05, 'Before and after the hardening work (issue 6; the list, issue 24: at least as fast)'),
  'outbox-cost': beforeAfter(null, 1.15, 'What the outbox costs (issue 7)'),
  events,
  'broker-outage': brokerOutage,
  projections,
  webhooks,
  dcim,
  'ipam-index': ipamIndex,
  'ipam-first-free': ipamFirstFree,
  ipam,
  memory,
  'device-types': deviceTypes,
  import: importNetbox,
  graphql,
  consistency,
  'as-of': asOf,
};

module.exports = { EXTRACTORS, met, format };
