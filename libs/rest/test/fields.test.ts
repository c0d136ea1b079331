import { defineModel, f, naturalize, withNaturalKeys } from '@inventory/rest';
import { isTimeZone } from '../src/model/timezones';
import { validateScalars } from '../src/write/validation';

describe('natural ordering keys', () => {
  test('when a name holds digit runs, then each is padded to 8 places as NetBox naturalize() does', () => {
    expect(naturalize('site 2')).toBe('site 00000002');
    expect(naturalize('site9router21')).toBe('site00000009router00000021');
    expect(naturalize('10abc')).toBe('00000010abc');
    expect(naturalize('no digits')).toBe('no digits');
    expect(naturalize('')).toBe('');
    // a run longer than 8 digits is kept whole
    expect(naturalize('x1234567890')).toBe('x1234567890');
    const keys = ['site 10', 'site 2', 'site 1', 'site 2a'].map(naturalize).sort();
    expect(keys).toEqual(['site 00000001', 'site 00000002', 'site 00000002a', 'site 00000010']);
  });

  test('when the padded key is longer than 100 characters, then it is cut at 100 characters (not UTF-16 units)', () => {
    expect(naturalize('1'.repeat(1) + 'a'.repeat(120))).toHaveLength(100);
    const emoji = naturalize(`${'😀'.repeat(99)}7`);
    expect(Array.from(emoji)).toHaveLength(100);
    expect(emoji.endsWith('0')).toBe(true);
  });

  test('when a write stores a naturally ordered field, then its key column is added; other writes leave it alone', () => {
    const model = defineModel({
      label: 'demo.thing',
      endpoint: 'things',
      verboseName: 'thing',
      fields: { name: f.name(100, { natural: true }), label: f.string(50) },
      brief: [],
      display: (r) => String(r.name),
      ordering: ['name'],
    });
    expect(withNaturalKeys(model, { name: 'rack 7', label: 'x' })).toEqual({ name: 'rack 7', _name: 'rack 00000007', label: 'x' });
    expect(withNaturalKeys(model, { label: 'y' })).toEqual({ label: 'y' });
  });
});

describe('decimal and time zone fields', () => {
  const model = defineModel({
    label: 'demo.place',
    endpoint: 'places',
    verboseName: 'place',
    fields: {
      latitude: f.decimal({ maxDigits: 8, decimalPlaces: 6, nullable: true }),
      weight: f.decimal({ min: 0 }),
      time_zone: f.timeZone(),
    },
    brief: [],
    display: () => '',
    ordering: [],
  });
  const check = (body: Record<string, unknown>) => validateScalars(model, 'patch', body);

  test('when a decimal fits its precision, then it is stored as plain decimal text, whatever notation it came in', () => {
    expect(check({ latitude: 40.712776 }).values.latitude).toBe('40.712776');
    expect(check({ latitude: ' -0.5 ' }).values.latitude).toBe('-0.5');
    expect(check({ latitude: '1.5e1' }).values.latitude).toBe('15');
    expect(check({ latitude: 1e-6 }).values.latitude).toBe('0.000001');
    expect(check({ latitude: '.25' }).values.latitude).toBe('0.25');
    expect(check({ latitude: '' }).values.latitude).toBeNull();
    expect(check({ latitude: null }).values.latitude).toBeNull();
    // no precision declared: NUMERIC(16,4)
    expect(check({ weight: 123456789012.5 }).errors).toEqual({});
  });

  test('when a decimal does not fit, then DRF DecimalField messages come back in its order of checks', () => {
    expect(check({ latitude: 123456789 }).errors).toEqual({ latitude: ['Ensure that there are no more than 8 digits in total.'] });
    expect(check({ latitude: '0.0000001' }).errors).toEqual({ latitude: ['Ensure that there are no more than 6 decimal places.'] });
    // trailing zeros are digits, as in Python's Decimal
    expect(check({ latitude: '1.5000000' }).errors).toEqual({ latitude: ['Ensure that there are no more than 6 decimal places.'] });
    expect(check({ latitude: '10.0000000' }).errors).toEqual({ latitude: ['Ensure that there are no more than 8 digits in total.'] });
    expect(check({ latitude: 100 }).errors).toEqual({ latitude: ['Ensure that there are no more than 2 digits before the decimal point.'] });
    expect(check({ latitude: '1e400' }).errors).toEqual({ latitude: ['Ensure that there are no more than 8 digits in total.'] });
    for (const bad of ['abc', '.', '1.2.3', 'NaN', 'Infinity', true, [], {}]) {
      expect([bad, check({ latitude: bad }).errors]).toEqual([bad, { latitude: ['A valid number is required.'] }]);
    }
    expect(check({ latitude: 'x'.repeat(1001) }).errors).toEqual({ latitude: ['String value too large.'] });
    expect(check({ weight: '' }).errors).toEqual({ weight: ['A valid number is required.'] });
    expect(check({ weight: -1 }).errors).toEqual({ weight: ['Ensure this value is greater than or equal to 0.'] });
    expect(check({ weight: 1.23456 }).errors).toEqual({ weight: ['Ensure that there are no more than 4 decimal places.'] });
  });

  test('when a time zone is checked, then tz database keys and links pass, spelled exactly, and nothing else does', () => {
    for (const zone of ['Europe/Berlin', 'UTC', 'Etc/UTC', 'GMT', 'US/Pacific', 'Asia/Kolkata', 'Asia/Calcutta']) expect([zone, isTimeZone(zone)]).toEqual([zone, true]);
    for (const zone of ['europe/berlin', 'Europe/Atlantis', '', 'UTC+1', '+01:00']) expect([zone, isTimeZone(zone)]).toEqual([zone, false]);
    expect(check({ time_zone: 'Europe/Berlin' })).toEqual({ values: { time_zone: 'Europe/Berlin' }, errors: {} });
    expect(check({ time_zone: 'nowhere' }).errors).toEqual({ time_zone: ['A valid timezone is required.'] });
    expect(check({ time_zone: '' }).errors).toEqual({ time_zone: ['A valid timezone is required.'] });
    expect(check({ time_zone: null }).values.time_zone).toBeNull();
  });
});
