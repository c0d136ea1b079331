import { GraphQLScalarType, Kind, valueFromASTUntyped } from 'graphql';

/** Free-form JSON (custom fields, config contexts, JSON fields): passed through as REST shows it. */
export const JsonScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value, as the REST API shows it.',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (ast, vars) => valueFromASTUntyped(ast, vars),
});

const asFilterText = (v: unknown): string => {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new TypeError('A filter value is a string, a number or a boolean.');
};

/**
 * A filter argument's value: a string, number or boolean, passed to the
 * REST filter as its query parameter's text (`id: 5`, `slug: "x"`,
 * `status: ["active", "planned"]`), checked there as REST checks it.
 */
export const FilterValueScalar = new GraphQLScalarType({
  name: 'FilterValue',
  description: 'A REST filter value (string, number or boolean), checked as the REST filter checks it.',
  serialize: asFilterText,
  parseValue: asFilterText,
  parseLiteral: (ast) => {
    if (ast.kind === Kind.STRING || ast.kind === Kind.INT || ast.kind === Kind.FLOAT || ast.kind === Kind.ENUM) return ast.value;
    if (ast.kind === Kind.BOOLEAN) return String(ast.value);
    throw new TypeError('A filter value is a string, a number or a boolean.');
  },
});
