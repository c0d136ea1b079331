/**
 * OpenAPI shapes of dcim's cable-path reads (trace, paths, connected-device):
 * the objects along a path are of many kinds, so each is a loose nested object.
 */
type Schema = Record<string, unknown>;

const NESTED: Schema = {
  type: 'object',
  properties: { id: { type: 'integer' }, url: { type: 'string', format: 'uri' }, display: { type: 'string' } },
  additionalProperties: true,
};

/** NetBox's CablePathSerializer. */
export const CABLE_PATH: Schema = {
  type: 'object',
  properties: {
    id: { type: 'integer', readOnly: true },
    path: { type: 'array', items: { type: 'array', items: NESTED }, readOnly: true },
    is_active: { type: 'boolean' },
    is_complete: { type: 'boolean' },
    is_split: { type: 'boolean' },
  },
  required: ['id', 'path', 'is_active', 'is_complete', 'is_split'],
};

/**
 * One `trace/` segment: [near ends, cable, far ends] (OpenAPI 3.0 has no
 * tuples: three items, each a list of nested objects or the cable, `[]` when none).
 */
export const TRACE_SEGMENT: Schema = {
  type: 'array',
  minItems: 3,
  maxItems: 3,
  items: { oneOf: [{ type: 'array', items: NESTED }, NESTED] },
};

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
