import { evaluate, InvalidConditionsError, validateConditions } from '../src/dispatch/conditions';

const site = {
  id: 7,
  name: 'Berlin 1',
  status: { value: 'active', label: 'Active' },
  tenant: null,
  asn: 65010,
  latitude: 52.5,
  is_pool: false,
  tags: [
    { id: 1, name: 'Core', slug: 'core' },
    { id: 2, name: 'Edge', slug: 'edge' },
  ],
  custom_fields: { owner: 'net-team', racks: 4 },
  time_zone: 'Europe/Berlin',
};

const when = (cond: Record<string, unknown>) => evaluate({ and: [cond] }, site);

describe('condition evaluation', () => {
  test('when a dotted attr equals the value, then the condition holds', () => {
    expect(when({ attr: 'status.value', value: 'active' })).toBe(true);
    expect(when({ attr: 'status.value', value: 'planned' })).toBe(false);
  });

  test('when op is omitted, then it is eq', () => {
    expect(when({ attr: 'asn', value: 65010 })).toBe(true);
  });

  test('when negate is true, then the result is inverted', () => {
    expect(when({ attr: 'status.value', value: 'active', negate: true })).toBe(false);
    expect(when({ attr: 'status.value', value: 'planned', negate: true })).toBe(true);
  });

  test('when the attribute is missing, then it is null: eq a value is false, eq null is true, negated eq is true', () => {
    expect(when({ attr: 'nosuch.value', value: 'x' })).toBe(false);
    expect(when({ attr: 'nosuch', value: null })).toBe(true);
    expect(when({ attr: 'nosuch.value', value: 'x', negate: true })).toBe(true);
  });

  test('when the path goes through null or a scalar, then the value is null', () => {
    expect(when({ attr: 'tenant.name', value: null })).toBe(true);
    expect(when({ attr: 'name.first', value: null })).toBe(true);
  });

  test('when the path crosses a list, then each element is looked up (tags.slug)', () => {
    expect(when({ attr: 'tags.slug', op: 'contains', value: 'core' })).toBe(true);
    expect(when({ attr: 'tags.slug', op: 'contains', value: 'dmz' })).toBe(false);
    expect(when({ attr: 'tags.slug', value: ['core', 'edge'] })).toBe(true);
  });

  test('when op is in, then the object value must be an element of the given list', () => {
    expect(when({ attr: 'status.value', op: 'in', value: ['planned', 'active'] })).toBe(true);
    expect(when({ attr: 'status.value', op: 'in', value: ['planned', 'staging'] })).toBe(false);
    expect(when({ attr: 'status.value', op: 'in', value: ['planned', 'staging'], negate: true })).toBe(true);
  });

  test('when op is contains, then the given value is a substring, an element or a key of the object value', () => {
    expect(when({ attr: 'name', op: 'contains', value: 'lin' })).toBe(true);
    expect(when({ attr: 'name', op: 'contains', value: 'LIN' })).toBe(false);
    expect(when({ attr: 'custom_fields', op: 'contains', value: 'owner' })).toBe(true);
    expect(when({ attr: 'custom_fields', op: 'contains', value: 'nope' })).toBe(false);
  });

  test('when comparing numbers, then gt/gte/lt/lte compare the object value with the given one', () => {
    expect(when({ attr: 'asn', op: 'gt', value: 65000 })).toBe(true);
    expect(when({ attr: 'asn', op: 'gt', value: 65010 })).toBe(false);
    expect(when({ attr: 'asn', op: 'gte', value: 65010 })).toBe(true);
    expect(when({ attr: 'asn', op: 'lt', value: 65010 })).toBe(false);
    expect(when({ attr: 'latitude', op: 'lte', value: 52.5 })).toBe(true);
    expect(when({ attr: 'custom_fields.racks', op: 'lt', value: 10.5 })).toBe(true);
  });

  test('when op is regex, then the pattern must match at the start only', () => {
    expect(when({ attr: 'time_zone', op: 'regex', value: 'Europe/' })).toBe(true);
    expect(when({ attr: 'time_zone', op: 'regex', value: 'Berlin' })).toBe(false);
    expect(when({ attr: 'time_zone', op: 'regex', value: '.*Berlin$' })).toBe(true);
    expect(when({ attr: 'name', op: 'regex', value: '(?P<city>[A-Z][a-z]+) (?P=city)?' })).toBe(true);
  });

  test('when the types do not match (gt on null, regex on a number, contains on a number), then the condition is false even negated', () => {
    expect(when({ attr: 'tenant', op: 'gt', value: 1 })).toBe(false);
    expect(when({ attr: 'tenant', op: 'gt', value: 1, negate: true })).toBe(false);
    expect(when({ attr: 'asn', op: 'regex', value: '65' })).toBe(false);
    expect(when({ attr: 'asn', op: 'contains', value: 6 })).toBe(false);
    expect(when({ attr: 'name', op: 'contains', value: 1 })).toBe(false);
    expect(when({ attr: 'name', op: 'regex', value: '(' })).toBe(false);
  });

  test('when comparing as Python does, then booleans equal 0/1 and lists compare deeply', () => {
    expect(when({ attr: 'is_pool', value: false })).toBe(true);
    expect(when({ attr: 'is_pool', value: 0 })).toBe(true);
    expect(when({ attr: 'is_pool', value: 'False' })).toBe(false);
    expect(when({ attr: 'tags.name', value: ['Edge', 'Core'] })).toBe(false);
  });

  test('when sets nest, then and needs all, or needs any, empty and is true and empty or is false', () => {
    const rules = {
      and: [
        { attr: 'status.value', value: 'active' },
        { or: [{ attr: 'asn', op: 'lt', value: 100 }, { attr: 'tags.slug', op: 'contains', value: 'edge' }] },
      ],
    };
    expect(evaluate(rules, site)).toBe(true);
    expect(evaluate(rules, { ...site, tags: [] })).toBe(false);
    expect(evaluate({ and: [] }, site)).toBe(true);
    expect(evaluate({ or: [] }, site)).toBe(false);
  });

  test('when there are no conditions (null, {}), then the rule always matches', () => {
    expect(evaluate(null, site)).toBe(true);
    expect(evaluate({}, site)).toBe(true);
  });

  test('when the stored conditions are invalid, then evaluate throws InvalidConditionsError', () => {
    expect(() => evaluate({ xor: [] }, site)).toThrow(InvalidConditionsError);
  });
});

describe('condition validation', () => {
  test('when the expression is valid or empty, then there is no message', () => {
    expect(validateConditions(null)).toBeNull();
    expect(validateConditions({})).toBeNull();
    expect(
      validateConditions({ or: [{ attr: 'a', value: [1], op: 'in' }, { and: [{ attr: 'b.c', value: null, negate: true }] }] }),
    ).toBeNull();
  });

  test.each([
    [['x'], "Ruleset must be a dictionary, not <class 'list'>."],
    ['and', "Ruleset must be a dictionary, not <class 'str'>."],
    [{ and: [], or: [] }, 'Ruleset must have exactly one logical operator (found 2)'],
    [{ xor: [] }, "Invalid logic type: xor (must be 'and' or 'or')"],
    [{ AND: [] }, "Invalid logic type: AND (must be 'and' or 'or')"],
    [{ and: [{ OR: [] }] }, "Invalid logic type: OR (must be 'and' or 'or')"],
    [{ and: [{ attr: 'a', value: 1, op: 'ne' }] }, 'Unknown operator: ne. Must be one of: eq, gt, gte, lt, lte, in, contains, regex'],
    [{ and: [{ attr: 'a', value: { x: 1 } }] }, "Unsupported value type: <class 'dict'>"],
    [{ and: [{ attr: 'a', value: 'x', op: 'gt' }] }, "Invalid type for gt operation: <class 'str'>"],
    [{ and: [{ attr: 'a', value: 1, op: 'in' }] }, "Invalid type for in operation: <class 'int'>"],
    [{ and: [{ attr: 'a', value: 1.5, op: 'regex' }] }, "Invalid type for regex operation: <class 'float'>"],
    [{ and: [{ attr: 'a', value: true, op: 'gt' }] }, "Invalid type for gt operation: <class 'bool'>"],
    [{ and: [{ attr: 'a', value: null, op: 'contains' }] }, "Invalid type for contains operation: <class 'NoneType'>"],
  ])('when the expression is %j, then the message is NetBox\'s "%s"', (value, message) => {
    expect(validateConditions(value)).toBe(message);
  });

  test('when a condition is malformed (missing attr or value, an extra key, not an object), then it gets a message instead of a crash', () => {
    expect(validateConditions({ and: [{ value: 1 }] })).toBe('Condition is missing the required key: attr');
    expect(validateConditions({ and: [{ attr: 'a' }] })).toBe('Condition is missing the required key: value');
    expect(validateConditions({ and: [{ attr: 'a', value: 1, extra: 2 }] })).toMatch(/^Unexpected key in condition: extra/);
    expect(validateConditions({ and: ['a'] })).toBe("Condition must be a dictionary, not <class 'str'>.");
    expect(validateConditions({ and: [{ attr: 3, value: 1 }] })).toMatch(/^Condition attr must be a non-empty string/);
    expect(validateConditions({ and: { attr: 'a', value: 1 } })).toMatch(/^Ruleset 'and' must be a list/);
  });
});
