import { isTimeZone, TIME_ZONE_MESSAGE } from './timezones';

/**
 * Field declarations. A model's fields, in order, drive its table columns,
 * validation, serializers, filters, OPTIONS and OpenAPI.
 */
export type OnDelete = 'CASCADE' | 'SET_NULL' | 'PROTECT';
export type Choice = readonly [value: string | number, label: string];

interface Base {
  label?: string;
  help?: string;
  /** Must be given on create (and PUT). */
  required?: boolean;
  nullable?: boolean;
  readOnly?: boolean;
  writeOnly?: boolean;
  /** Value used on create when the field is omitted. */
  default?: unknown;
  /** `unique: true` or the message to show. */
  unique?: boolean | string;
  /** Generate a filter (default true for scalar and relation fields). */
  filter?: boolean;
  /** Allowed in `ordering=` (default true). */
  orderable?: boolean;
  /** The value is computed by the model, not stored as a column. */
  virtual?: boolean;
  /** A deprecated name of another field (a device's `device_role` of `role`): a write may give it instead. */
  aliasOf?: string;
}

export interface StringField extends Base {
  type: 'string' | 'text' | 'slug' | 'email' | 'url' | 'password' | 'color';
  maxLength?: number;
  minLength?: number;
  pattern?: { regex: RegExp; message: string };
  /** Base filter matches case-insensitively (e.g. device name). */
  iexactFilter?: boolean;
  /**
   * Natural ordering (NetBox's NaturalOrderingField): the engine keeps a sort
   * key column `_<name>` (digit runs zero-padded, see natural.ts) on every
   * write, and ordering by the field sorts by it ("site 2" before "site 10").
   */
  natural?: boolean;
  /** A rule of the value itself beyond type and length (blank values reach it too): a time zone name, say. */
  check?: { test: (value: string) => boolean; message: string };
}

/** Precision and scale of a decimal column whose declaration names none. */
export const DECIMAL_DIGITS = 16;
export const DECIMAL_PLACES = 4;

export interface NumberField extends Base {
  type: 'integer' | 'decimal' | 'bigint';
  min?: number;
  max?: number;
  /** Decimals: digits in total (the column's precision, NUMERIC(maxDigits, decimalPlaces)); default 16. */
  maxDigits?: number;
  /** Decimals: digits after the point (the column's scale); default 4. */
  decimalPlaces?: number;
}

export interface BooleanField extends Base {
  type: 'boolean';
}

export interface DateField extends Base {
  type: 'date' | 'datetime';
}

export interface JsonField extends Base {
  type: 'json';
  /** Accept only a JSON object (or array). */
  shape?: 'object' | 'array' | 'object-or-array';
  /** Stored as `json`, the text as written (key order, spacing), rather than `jsonb`: for a record kept to be sent again as it was. */
  asText?: boolean;
}

export interface ChoiceField extends Base {
  type: 'choice';
  choices: readonly Choice[];
  /** Blank stored as '' and read as null. */
  blank?: boolean;
  /** Render the bare value instead of {value, label} (stock DRF choice fields). */
  plain?: boolean;
  /** The brief (nested) form renders the bare value (NetBox's nested serializers declare a stock DRF field: a service's `protocol`). */
  briefPlain?: boolean;
  /** Filter accepts a single value only. */
  singleFilter?: boolean;
}

export interface RelationField extends Base {
  type: 'fk';
  /** Target content type label, e.g. `tenancy.tenantgroup`. */
  to: string;
  onDelete: OnDelete;
  /** Key used by the slug-style filter (`?group=<slug>`), default `slug`; null for none. */
  filterKey?: string | null;
  /** Filter name for the id filter (default `<name>_id`). */
  idFilter?: string;
  /** Filters match descendants too (tree targets). */
  treeFilter?: boolean;
  /** Filters through the target's own relation (a site's `?tenant_group=`): see `Hop`. */
  hops?: Hop[];
  /** Brief form: this attribute of the target instead of its nested object (a rack reservation's user, by username). */
  readAs?: string;
  /**
   * Read and written as the bare primary key in every mode, as a stock DRF
   * PrimaryKeyRelatedField (a saved filter's `user`): no nested object, and
   * an attribute set is refused.
   */
  pk?: boolean;
}

/**
 * A filter two relations away: `?<name>=` matches objects whose target's
 * `via` relation is one of the given `to` objects (and their descendants
 * when `tree`), looked up by `key`. Works on local and projected targets.
 */
export interface Hop {
  name: string;
  via: string;
  to: string;
  /** `id`, or the attribute of `to` the values name (`slug`; `name` for models without a slug). */
  key: 'id' | 'slug' | 'name';
  tree?: boolean;
}

/** NetBox's TenancyFilterSet beyond `tenant`/`tenant_id`: the tenant's group, at any depth. */
export const TENANT_GROUP_HOPS: Hop[] = [
  { name: 'tenant_group', via: 'group', to: 'tenancy.tenantgroup', key: 'slug', tree: true },
  { name: 'tenant_group_id', via: 'group', to: 'tenancy.tenantgroup', key: 'id', tree: true },
];

export interface ManyField extends Base {
  type: 'm2m';
  to: string;
  /** Table linking owner and target (created with the owner). */
  through: string;
  /**
   * How the elements are written: ids only, ids/attribute sets, or slugs
   * (`slug`: read back as slugs too, in every mode, as a config context's tags).
   */
  write: 'pk' | 'nested' | 'slug';
  /** Read form: nested objects (default) or a plain attribute per element. */
  readAs?: string;
  filterKey?: string | null;
  idFilter?: string;
  /** Name of the `filterKey` filter (default the field's name): a config context's `regions` filter by `?region=<slug>`. */
  filterName?: string;
  /**
   * Deleting a linked object of this service is a change of the objects
   * that linked it (each updated, with its event), not only a removed link
   * row: set where other services project the links (a config context's
   * criteria). Links to other services' objects always are.
   */
  removalIsChange?: boolean;
}

export interface ContentTypeField extends Base {
  type: 'contenttype';
  /** Allowed labels; default any in the catalogue. */
  allowed?: (label: string) => boolean;
  many?: boolean;
}

/** Generic relation: `<name>_type` + `<name>_id` columns, read back as `<name>`. */
export interface GenericField extends Base {
  type: 'generic';
  typeField: string;
  idField: string;
  allowed?: (label: string) => boolean;
}

/**
 * An IP network (`cidr`: a prefix, host bits zero) or an address with its
 * mask (`inet`), stored as PostgreSQL's type of that name (SP-GiST-indexed,
 * `inet_ops`), read and written as text (`192.0.2.0/24`). The base filter
 * matches exactly, values normalised (network.ts).
 */
export interface NetworkField extends Base {
  type: 'cidr' | 'inet';
  /** The message refusing a /0 mask (a zero mask is accepted without it). */
  zeroMask?: string;
}

export interface ArrayField extends Base {
  type: 'array';
  of: 'string' | 'integer';
  maxItems?: number;
  itemMaxLength?: number;
}

export type FieldDef =
  | StringField
  | NumberField
  | BooleanField
  | DateField
  | JsonField
  | ChoiceField
  | RelationField
  | ManyField
  | ContentTypeField
  | GenericField
  | NetworkField
  | ArrayField;

/** Shorthands used by the declarations. */
export const f = {
  string: (maxLength: number, o: Omit<StringField, 'type' | 'maxLength'> = {}): StringField => ({ type: 'string', maxLength, ...o }),
  name: (maxLength = 100, o: Omit<StringField, 'type'> = {}): StringField => ({ type: 'string', maxLength, required: true, ...o }),
  slug: (maxLength = 100, o: Omit<StringField, 'type'> = {}): StringField => ({ type: 'slug', maxLength, required: true, ...o }),
  description: (): StringField => ({ type: 'string', maxLength: 200 }),
  comments: (): StringField => ({ type: 'text' }),
  text: (o: Omit<StringField, 'type'> = {}): StringField => ({ type: 'text', ...o }),
  email: (o: Omit<StringField, 'type'> = {}): StringField => ({ type: 'email', maxLength: 254, ...o }),
  url: (maxLength = 200, o: Omit<StringField, 'type'> = {}): StringField => ({ type: 'url', maxLength, ...o }),
  password: (o: Omit<StringField, 'type'> = {}): StringField => ({ type: 'password', maxLength: 128, writeOnly: true, ...o }),
  color: (o: Omit<StringField, 'type'> = {}): StringField => ({ type: 'color', maxLength: 6, ...o }),
  integer: (o: Omit<NumberField, 'type'> = {}): NumberField => ({ type: 'integer', ...o }),
  decimal: (o: Omit<NumberField, 'type'> = {}): NumberField => ({ type: 'decimal', ...o }),
  /** An IANA zone name or null (NetBox's TimeZoneField): not a filter, as in NetBox. */
  timeZone: (o: Omit<StringField, 'type'> = {}): StringField => ({
    type: 'string',
    maxLength: 63,
    nullable: true,
    filter: false,
    check: { test: isTimeZone, message: TIME_ZONE_MESSAGE },
    ...o,
  }),
  boolean: (dflt: boolean, o: Omit<BooleanField, 'type'> = {}): BooleanField => ({ type: 'boolean', default: dflt, ...o }),
  datetime: (o: Omit<DateField, 'type'> = {}): DateField => ({ type: 'datetime', ...o }),
  date: (o: Omit<DateField, 'type'> = {}): DateField => ({ type: 'date', ...o }),
  json: (o: Omit<JsonField, 'type'> = {}): JsonField => ({ type: 'json', ...o }),
  choice: (choices: readonly Choice[], o: Omit<ChoiceField, 'type' | 'choices'> = {}): ChoiceField => ({ type: 'choice', choices, ...o }),
  fk: (to: string, onDelete: OnDelete, o: Omit<RelationField, 'type' | 'to' | 'onDelete'> = {}): RelationField => ({
    type: 'fk',
    to,
    onDelete,
    nullable: onDelete === 'SET_NULL' || o.nullable,
    ...o,
  }),
  m2m: (to: string, through: string, o: Omit<ManyField, 'type' | 'to' | 'through' | 'write'> & { write?: 'pk' | 'nested' | 'slug' } = {}): ManyField => ({
    type: 'm2m',
    to,
    through,
    write: 'pk',
    ...o,
  }),
  contentType: (o: Omit<ContentTypeField, 'type'> = {}): ContentTypeField => ({ type: 'contenttype', ...o }),
  contentTypes: (o: Omit<ContentTypeField, 'type' | 'many'> = {}): ContentTypeField => ({ type: 'contenttype', many: true, ...o }),
  generic: (typeField: string, idField: string, o: Omit<GenericField, 'type' | 'typeField' | 'idField'> = {}): GenericField => ({
    type: 'generic',
    typeField,
    idField,
    readOnly: true,
    ...o,
  }),
  cidr: (o: Omit<NetworkField, 'type'> = {}): NetworkField => ({ type: 'cidr', ...o }),
  inet: (o: Omit<NetworkField, 'type'> = {}): NetworkField => ({ type: 'inet', ...o }),
  array: (of: 'string' | 'integer', o: Omit<ArrayField, 'type' | 'of'> = {}): ArrayField => ({ type: 'array', of, ...o }),
};

/** Field types stored as text: one filter kind, one schema type. */
export const TEXT_TYPES: ReadonlySet<FieldDef['type']> = new Set(['string', 'text', 'slug', 'email', 'url', 'color', 'password']);

/** Network field types: one column type each, one filter kind, text on the wire. */
export const NETWORK_TYPES: ReadonlySet<FieldDef['type']> = new Set(['cidr', 'inet']);

/** Column that stores a field (relations store `<name>_id`). */
export function columnOf(name: string, field: FieldDef): string | null {
  if (field.virtual || field.type === 'm2m' || field.type === 'generic') return null;
  if (field.type === 'fk') return `${name}_id`;
  return name;
}

/**
 * The declared field of that name, or undefined. Names come from clients
 * (attribute sets, ordering, lookups): `constructor` or `__proto__` must not
 * find Object.prototype's members.
 */
export function fieldOf(model: { fields: Record<string, FieldDef> }, name: string): FieldDef | undefined {
  return Object.prototype.hasOwnProperty.call(model.fields, name) ? model.fields[name] : undefined;
}
