'use strict';
/**
 * The practical limit of this stack: a bare node `http` + `pg` server that
 * answers GET /api/tenancy/tenants/?limit=50 with the same JSON as the tenancy
 * service, reading the same tables with the fewest queries it can. It reads
 * extras' tag table directly, which the real services may not do.
 */
const http = require('node:http');
const pg = require('pg');

pg.types.setTypeParser(1184, (v) => v);
pg.types.setTypeParser(20, (v) => Number(v));

const iso = (s) => {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(\.\d+)?\+00$/.exec(s);
  // six digits of microseconds, as Python's isoformat (PostgreSQL drops trailing zeros: .18752 is .187520)
  return m ? `${m[1]}T${m[2]}${m[3] && !/^\.0+$/.test(m[3]) ? m[3].padEnd(7, '0') : ''}Z` : s;
};

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const COUNTS = ['circuit_count', 'device_count', 'ipaddress_count', 'prefix_count', 'rack_count', 'site_count', 'virtualmachine_count', 'vlan_count', 'vrf_count', 'cluster_count'];

async function tenants(base, limit, offset) {
  const { rows } = await pool.query(
    'SELECT t.*, count(*) OVER() AS total FROM tenancy.tenant t ORDER BY t.name ASC NULLS LAST, t.id ASC LIMIT $1 OFFSET $2',
    [limit, offset],
  );
  const ids = rows.map((r) => r.id);
  const groupIds = [...new Set(rows.map((r) => r.group_id).filter((x) => x !== null))];
  const [groups, tagged] = await Promise.all([
    pool.query('SELECT id, name, slug, _depth FROM tenancy.tenant_group WHERE id = ANY($1::bigint[])', [groupIds]),
    pool.query(
      `SELECT ti.object_id, tg.id, tg.name, tg.slug, tg.color FROM tenancy._tagged_item ti JOIN extras.tag tg ON tg.id = ti.tag_id
       WHERE ti.content_type = 'tenancy.tenant' AND ti.object_id = ANY($1::bigint[]) ORDER BY tg.name`,
      [ids],
    ),
  ]);
  const g = new Map(groups.rows.map((r) => [r.id, { id: r.id, url: `${base}/api/tenancy/tenant-groups/${r.id}/`, display: r.name, name: r.name, slug: r.slug, _depth: r._depth }]));
  const tags = new Map();
  for (const t of tagged.rows) {
    const list = tags.get(t.object_id) || [];
    list.push({ id: t.id, url: `${base}/api/extras/tags/${t.id}/`, display: t.name, name: t.name, slug: t.slug, color: t.color });
    tags.set(t.object_id, list);
  }
  const results = rows.map((r) => {
    const o = {
      id: r.id,
      url: `${base}/api/tenancy/tenants/${r.id}/`,
      display: r.name,
      name: r.name,
      slug: r.slug,
      group: r.group_id === null ? null : g.get(r.group_id),
      description: r.description,
      comments: r.comments,
      tags: tags.get(r.id) || [],
      custom_fields: {},
      created: iso(r.created),
      last_updated: iso(r.last_updated),
    };
    for (const c of COUNTS) o[c] = 0;
    return o;
  });
  const count = rows.length ? rows[0].total : 0;
  const next = offset + limit >= count ? null : `${base}/api/tenancy/tenants/?limit=${limit}&offset=${offset + limit}`;
  return { count, next, previous: null, results };
}

http
  .createServer(async (req, res) => {
    try {
      const url = new URL(req.url, `http://${req.headers.host}`);
      const limit = Math.min(Number(url.searchParams.get('limit') || 50), 1000);
      const body = JSON.stringify(await tenants(`http://${req.headers["x-forwarded-host"] || req.headers.host}`, limit, Number(url.searchParams.get("offset") || 0)));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    } catch (err) {
      res.writeHead(500);
      res.end(String(err));
    }
  })
  .listen(Number(process.env.PORT), '127.0.0.1', () => process.send && process.send('ready'));

process.on('message', (m) => {
  if (m === 'stop') process.exit(0);
});
