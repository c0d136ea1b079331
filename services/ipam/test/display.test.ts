import { ipamModels } from '@inventory/ipam';

const name = (start: string, end: string) => ipamModels.ipRange.display({ start_address: start, end_address: end }, {});

describe('IP range display', () => {
  test('when both bounds share leading chunks, then the name keeps them once and joins the rest with a dash', () => {
    expect(name('192.0.2.10/24', '192.0.2.20/24')).toBe('192.0.2.10-20/24');
    expect(name('2001:db8:ab::10/64', '2001:db8:ab::ff/64')).toBe('2001:db8:ab::10-ff/64');
    // PostgreSQL's text of a host drops its /32: the mask is put back
    expect(name('10.0.0.1', '10.0.0.9')).toBe('10.0.0.1-9/32');
  });

  test('when equal chunks follow a differing one, then they still count as shared (NetBox\'s quirk)', () => {
    expect(name('10.1.2.3/8', '10.5.2.9/8')).toBe('10.2.2.3-2.9/8');
  });
});
