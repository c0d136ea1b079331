import fc from 'fast-check';
import { pyJsonDumps, treeDumps } from '@inventory/templates';

/** The default body's JSON: the compact path gives exactly the text of the value-by-value one (Python's json.dumps). */
test('when any JSON value is dumped, then the compact path and the value-by-value path give the same text', () => {
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
  fc.assert(
    fc.property(fc.jsonValue(), (v) => pyJsonDumps(v) === treeDumps(v)),
    { seed, numRuns: 500 },
  );
  const tricky = { 'a,b': 'x: y, "z"', 'ü': ['é', '\u2028', '\n\t\\', 'emoji 😀'], n: [0, -1.5, 1e21, 12345678901234], nested: { '': null, t: true } };
  expect(pyJsonDumps(tricky)).toBe(treeDumps(tricky));
  expect(pyJsonDumps(tricky)).toBe(
    '{"a,b": "x: y, \\"z\\"", "\\u00fc": ["\\u00e9", "\\u2028", "\\n\\t\\\\", "emoji \\ud83d\\ude00"], "n": [0, -1.5, 1e+21, 12345678901234], "nested": {"": null, "t": true}}',
  );
});
