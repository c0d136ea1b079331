import { HistoryReads } from '../src/model/history-reads';

describe('as_of reads rewrite the tables that keep history', () => {
  const reads = new HistoryReads('dcim', new Set(['site', 'site_group', '_tagged_item']), '2024-01-01T00:00:00.000Z');
  const at = '2024-05-01T00:00Z';

  test('when a read names kept tables, then each becomes its as_of function of the moment, a literal the planner sees', () => {
    const text = reads.rewrite('SELECT t.* FROM "dcim"."site" t JOIN "dcim"."site_group" g ON g.id = t.group_id WHERE t.id = $1 AND EXISTS (SELECT 1 FROM "dcim"."_tagged_item")', at);
    expect(text).toBe(
      `SELECT t.* FROM "dcim"."site__as_of"('${at}'::timestamptz) t JOIN "dcim"."site_group__as_of"('${at}'::timestamptz) g ON g.id = t.group_id WHERE t.id = $1 AND EXISTS (SELECT 1 FROM "dcim"."_tagged_item__as_of"('${at}'::timestamptz))`,
    );
  });

  test('when the moment holds a quote, then it stays inside its literal', () => {
    expect(reads.rewrite('SELECT 1 FROM "dcim"."site"', "2024'; DROP")).toBe(`SELECT 1 FROM "dcim"."site__as_of"('2024''; DROP'::timestamptz)`);
  });

  test('when a statement names no kept table, another schema, or writes, then it is left as it is', () => {
    for (const text of ['SELECT 1 FROM "dcim"."_outbox"', 'SELECT 1 FROM "ipam"."site"', 'SELECT 1 FROM "dcim"."sites"', 'UPDATE "dcim"."site" SET name = $1']) {
      expect(reads.rewrite(text, at)).toBe(text);
    }
  });
});
