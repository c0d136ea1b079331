import { defineModel, f, formatAddress, formatNetwork, isNetwork, networkOf, networkText, parseNetwork } from '@inventory/rest';
import { validateScalars } from '../src/write/validation';

const text = (s: string) => {
  const n = parseNetwork(s);
  return n && formatNetwork(n);
};

describe('network parsing', () => {
  test('when an IPv4 address is given with or without a mask, then it reads with its mask (a bare one as a host)', () => {
    expect(text('192.0.2.1/24')).toBe('192.0.2.1/24');
    expect(text('192.0.2.1')).toBe('192.0.2.1/32');
    expect(text(' 10.0.0.0/8 ')).toBe('10.0.0.0/8');
    expect(text('10.0.0.0/255.255.0.0')).toBe('10.0.0.0/16');
    expect(text('0.0.0.0/0')).toBe('0.0.0.0/0');
  });

  test('when an IPv6 address is given, then it reads compressed in lower case as netaddr prints it', () => {
    expect(text('2001:DB8:0:0:0:0:0:1/64')).toBe('2001:db8::1/64');
    expect(text('2001:db8::')).toBe('2001:db8::/128');
    expect(text('::/0')).toBe('::/0');
    expect(text('::1')).toBe('::1/128');
    // the longest zero run is compressed, the first of equal runs; a single zero group is not
    expect(text('2001:0:0:1:0:0:0:1')).toBe('2001:0:0:1::1/128');
    expect(text('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1/128');
    expect(text('1:0:0:2:0:0:3:4')).toBe('1::2:0:0:3:4/128');
    expect(text('::ffff:192.0.2.1')).toBe('::ffff:192.0.2.1/128');
  });

  test('when the text is not an address, then it does not parse', () => {
    for (const bad of ['', 'x', '1.2.3', '1.2.3.4.5', '256.0.0.1', '10.0.0.0/33', '10.0.0.0/', '2001:db8::/129', '2001:db8:::1', '1::2::3', '1:2:3:4:5:6:7:8:9', '10.0.0.0/255.0.255.0', '::1/255.255.255.0', 'g::1']) {
      expect([bad, parseNetwork(bad)]).toEqual([bad, null]);
    }
    expect(parseNetwork(12)).toBeNull();
  });

  test('when host bits are set, then it is not a network and its network clears them', () => {
    const n = parseNetwork('192.0.2.77/24')!;
    expect(isNetwork(n)).toBe(false);
    expect(formatNetwork(networkOf(n))).toBe('192.0.2.0/24');
    expect(isNetwork(parseNetwork('192.0.2.0/24')!)).toBe(true);
    expect(formatNetwork(networkOf(parseNetwork('2001:db8:1:2::5/48')!))).toBe('2001:db8:1::/48');
    expect(formatAddress(4, 0xc0000201n)).toBe('192.0.2.1');
  });

  test('when PostgreSQL reads a host inet without its mask, then the text gets /32 or /128 back', () => {
    expect(networkText('192.0.2.1')).toBe('192.0.2.1/32');
    expect(networkText('2001:db8::1')).toBe('2001:db8::1/128');
    expect(networkText('10.0.0.0/8')).toBe('10.0.0.0/8');
    expect(networkText(null)).toBeNull();
  });
});

describe('network fields', () => {
  const model = defineModel({
    label: 'demo.net',
    endpoint: 'nets',
    verboseName: 'net',
    fields: { prefix: f.cidr({ required: true, zeroMask: 'Cannot create prefix with /0 mask.' }), address: f.inet() },
    brief: [],
    display: (r) => String(r.prefix),
    ordering: ['prefix'],
  });
  const check = (body: Record<string, unknown>) => validateScalars(model, 'create', body);

  test('when a prefix has host bits set, then it is refused naming the network it meant', () => {
    expect(check({ prefix: '10.1.2.3/16' }).errors).toEqual({ prefix: ['10.1.2.3/16 is not a valid prefix. Did you mean 10.1.0.0/16?'] });
  });

  test('when a prefix has a /0 mask where the declaration refuses it, then the declared message is the error', () => {
    expect(check({ prefix: '0.0.0.0/0' }).errors).toEqual({ prefix: ['Cannot create prefix with /0 mask.'] });
  });

  test('when values are valid, then they are stored in canonical text', () => {
    const { values, errors } = check({ prefix: '2001:DB8::/32', address: '192.0.2.1' });
    expect(errors).toEqual({});
    expect(values).toMatchObject({ prefix: '2001:db8::/32', address: '192.0.2.1/32' });
  });

  test('when a value is not an address or not text, then NetBox messages name the field', () => {
    expect(check({ prefix: 'nope' }).errors).toEqual({ prefix: ['Invalid IP address format: nope'] });
    expect(check({ prefix: '10.0.0.0/8', address: 5 }).errors).toEqual({ address: ['Not a valid string.'] });
    expect(check({ address: '10.0.0.1' }).errors).toEqual({ prefix: ['This field is required.'] });
  });
});
