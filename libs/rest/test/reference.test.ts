import { isoDateTime } from '../src/model/format';
import { relativeUrls } from '../src/projections/reference';

describe('relativeUrls', () => {
  test.each([
    ['http://h:8000/api/dcim/devices/1/', '/api/dcim/devices/1/'],
    ['https://netbox.example.com/api/dcim/sites/7/?brief=1', '/api/dcim/sites/7/'],
    ['http://h/api/x/#frag', '/api/x/'],
    ['http://h', '/'],
    ['/api/already/relative/', '/api/already/relative/'],
    ['not a url', 'not a url'],
  ])('%s becomes %s, nested at any depth', (url, path) => {
    expect(relativeUrls({ url, device: { url, tags: [{ url }] }, name: url })).toEqual({ url: path, device: { url: path, tags: [{ url: path }] }, name: url });
  });
});

describe('isoDateTime', () => {
  test('PostgreSQL timestamps become ISO 8601, each its own even when repeated or interleaved', () => {
    const a = '2024-05-06 12:00:00.123456+00';
    const b = '2024-05-06 12:00:01+02';
    expect([a, a, b, a, b, null].map(isoDateTime)).toEqual([
      '2024-05-06T12:00:00.123456Z',
      '2024-05-06T12:00:00.123456Z',
      '2024-05-06T12:00:01+02:00',
      '2024-05-06T12:00:00.123456Z',
      '2024-05-06T12:00:01+02:00',
      null,
    ]);
  });

  test('microseconds are six digits as Python writes them (PostgreSQL drops trailing zeros), none when zero', () => {
    expect(
      ['2026-11-28 01:50:56.49513+00', '2026-11-28 01:50:56.5+00', '2026-11-28 01:50:56.000001+00', '2026-11-28 01:50:56.000+00', '2026-11-28 01:50:56+00'].map(isoDateTime),
    ).toEqual(['2026-11-28T01:50:56.495130Z', '2026-11-28T01:50:56.500000Z', '2026-11-28T01:50:56.000001Z', '2026-11-28T01:50:56Z', '2026-11-28T01:50:56Z']);
    expect(isoDateTime(new Date('2026-11-28T01:50:56.120Z'))).toBe('2026-11-28T01:50:56.120000Z');
    expect(isoDateTime(new Date('2026-11-28T01:50:56.000Z'))).toBe('2026-11-28T01:50:56Z');
  });
});
