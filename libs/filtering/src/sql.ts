/**
 * A tiny SQL fragment builder: values never touch the SQL text; they become
 * `$n` bind parameters when the whole statement is rendered.
 */
export class Sql {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}

  get isEmpty(): boolean {
    return this.values.length === 0 && this.strings.join('').trim() === '';
  }
}

export function sql(strings: TemplateStringsArray | readonly string[], ...values: unknown[]): Sql {
  const outStrings: string[] = [strings[0]];
  const outValues: unknown[] = [];
  values.forEach((value, i) => {
    if (value instanceof Sql) {
      outStrings[outStrings.length - 1] += value.strings[0];
      for (let j = 0; j < value.values.length; j++) {
        outValues.push(value.values[j]);
        outStrings.push(value.strings[j + 1]);
      }
      outStrings[outStrings.length - 1] += strings[i + 1];
    } else {
      outValues.push(value);
      outStrings.push(strings[i + 1]);
    }
  });
  return new Sql(outStrings, outValues);
}

/** Trusted SQL text (identifiers from model declarations, never user input). */
export function raw(text: string): Sql {
  return new Sql([text], []);
}

export const empty = raw('');

export function join(parts: Sql[], separator: string): Sql {
  if (parts.length === 0) return empty;
  const strings = ['', ...parts.slice(1).map(() => separator), ''];
  return sql(strings, ...parts);
}

export function and(parts: Sql[]): Sql {
  const real = parts.filter((p) => !p.isEmpty);
  if (real.length === 0) return raw('TRUE');
  if (real.length === 1) return real[0];
  return sql`(${join(real, ' AND ')})`;
}

export function or(parts: Sql[]): Sql {
  const real = parts.filter((p) => !p.isEmpty);
  if (real.length === 0) return raw('FALSE');
  if (real.length === 1) return real[0];
  return sql`(${join(real, ' OR ')})`;
}

/** A method filter's condition, or its negation for the `__n` lookup (Django's exclude). */
export function excludedBy(lookup: string | null | undefined, condition: Sql): Sql {
  return lookup === 'n' ? sql`NOT (${condition})` : condition;
}

/** Quotes an identifier (schema, table, column names from declarations). */
export function ident(name: string): Sql {
  return raw(quoteIdent(name));
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * A statement to run as a named prepared statement: PostgreSQL parses it once
 * per connection. `generic` also skips planning per call (a generic plan,
 * built once, whatever the values): for a long statement whose plan does not
 * depend on its values, where planning costs more than executing.
 */
export class Prepared extends Sql {
  constructor(
    statement: Sql,
    readonly generic: boolean,
  ) {
    super(statement.strings, statement.values);
  }
}

export function prepared(statement: Sql, opts: { generic?: boolean } = {}): Prepared {
  return new Prepared(statement, opts.generic === true);
}

export function render(statement: Sql): { text: string; values: unknown[] } {
  let text = statement.strings[0];
  for (let i = 0; i < statement.values.length; i++) text += `$${i + 1}${statement.strings[i + 1]}`;
  return { text, values: [...statement.values] };
}

/** Escapes LIKE wildcards in user input. */
export function likeEscape(value: string): string {
  return value.replace(/[\\%_]/g, (m) => `\\${m}`);
}
