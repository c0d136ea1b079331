import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  GraphQLUnionType,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLResolveInfo,
} from 'graphql';
import { PermissionDenied } from '@inventory/core';
import { sql, ident } from '@inventory/filtering';
import type { FieldDef, ModelDef, Row } from '../model';
import { fieldsFor } from '../read';
import type { Batchers } from './batch';
import { typeName } from './names';
import { childrenWhere, objectsByIds, type ReadScope } from './reads';
import { genericTargets, type Reverse } from './relations';
import { JsonScalar } from './scalars';
import { selected } from './selection';

/** What the resolvers of one request share. */
export interface GraphqlContext {
  scope: ReadScope;
  batchers: Batchers;
}

type Field = GraphQLFieldConfig<Row, GraphqlContext>;

/** A reference's value: the nested object REST shows, or a bare id. */
const idOf = (v: unknown): number | null => (v === null || v === undefined ? null : Number(typeof v === 'object' ? (v as Row).id : v));

/** A read the caller may not make at all resolves to nothing (NetBox's GraphQL restricts, it does not refuse nested reads). */
async function permitted<T>(read: () => Promise<T>, none: T): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof PermissionDenied) return none;
    throw err;
  }
}

/**
 * The object types of one service's subgraph: a full type per local model,
 * a stub (its `id` and the reverse relations this service adds) per model
 * of another service, a union per generic relation. Built once per service.
 */
export class TypeRegistry {
  private readonly objects = new Map<string, GraphQLObjectType>();
  private readonly unions = new Map<string, GraphQLUnionType>();

  constructor(
    private readonly local: Map<string, ModelDef>,
    private readonly reverse: Map<string, Reverse[]>,
  ) {}

  /** Types of other services this subgraph names: the keys type merging resolves elsewhere. */
  stubs(): string[] {
    return [...this.objects.keys()].filter((l) => !this.local.has(l));
  }

  /** The object type of a model, local or stub. */
  object(label: string): GraphQLObjectType {
    let t = this.objects.get(label);
    if (t) return t;
    const model = this.local.get(label);
    t = new GraphQLObjectType<Row, GraphqlContext>({
      name: typeName(label),
      description: model ? `NetBox's ${model.verboseName}, as the REST API shows it.` : `An object of ${label}, served by another service (merged at the gateway).`,
      fields: () => (model ? { ...this.modelFields(model), ...this.reverseFields(label) } : { id: { type: new GraphQLNonNull(GraphQLInt) }, ...this.reverseFields(label) }),
    });
    this.objects.set(label, t);
    return t;
  }

  /** A local model's objects by id, batched per request and selection (one read per nesting level). */
  load(c: GraphqlContext, info: GraphQLResolveInfo, label: string, id: number): Promise<Row | null> {
    const model = this.local.get(label);
    if (!model) return Promise.resolve({ id });
    const { select, key } = selected(info, model);
    const batch = c.batchers.of<number, Row | null>(`object:${label}:${key}`, (ids) =>
      permitted(() => objectsByIds(c.scope, model, ids, select), ids.map(() => null)),
    );
    return batch.get(id);
  }

  private modelFields(model: ModelDef): GraphQLFieldConfigMap<Row, GraphqlContext> {
    const out: GraphQLFieldConfigMap<Row, GraphqlContext> = {
      id: { type: new GraphQLNonNull(GraphQLInt) },
      url: { type: GraphQLString },
      display: { type: GraphQLString },
    };
    for (const name of fieldsFor(model, 'full')) {
      const field = model.fields[name];
      if (field) out[name] = this.fieldOf(model, name, field);
    }
    if (model.tags) out.tags = this.refList('extras.tag', 'tags');
    if (model.customFields) out.custom_fields = { type: JsonScalar };
    if (model.timestamps) Object.assign(out, { created: { type: GraphQLString }, last_updated: { type: GraphQLString } });
    for (const count of Object.keys(model.counts)) out[count] = { type: GraphQLInt };
    if (model.configContext) out.config_context = { type: JsonScalar };
    if (model.tree) out._depth = { type: GraphQLInt };
    return out;
  }

  /** One declared field: choices as their value, references as objects, generic relations as unions. */
  private fieldOf(model: ModelDef, name: string, field: FieldDef): Field {
    switch (field.type) {
      case 'integer':
        return { type: GraphQLInt };
      case 'bigint': // beyond GraphQL's 32-bit Int (a 4-byte ASN)
      case 'decimal':
        return { type: GraphQLFloat };
      case 'boolean':
        return { type: GraphQLBoolean };
      case 'json':
        return { type: JsonScalar };
      case 'choice':
        return {
          type: typeof field.choices[0]?.[0] === 'number' ? GraphQLInt : GraphQLString,
          resolve: (r) => {
            const v = r[name];
            return v !== null && typeof v === 'object' ? (v as Row).value : v;
          },
        };
      case 'fk':
        if (field.pk || field.readAs) return { type: field.pk ? GraphQLInt : GraphQLString };
        return { type: this.object(field.to), resolve: (r, _a, c, info) => this.ref(c, info, field.to, r[name]) };
      case 'm2m':
        if (field.readAs || field.write === 'slug') return { type: new GraphQLList(GraphQLString) };
        return this.refList(field.to, name);
      case 'contenttype':
        return { type: field.many ? new GraphQLList(GraphQLString) : GraphQLString };
      case 'generic':
        return { type: this.union(model, name, field), resolve: (r, _a, c, info) => this.genericRef(c, info, r, name, field) };
      case 'array':
        return { type: new GraphQLList(field.of === 'integer' ? GraphQLInt : GraphQLString) };
      default:
        return { type: GraphQLString };
    }
  }

  private ref(c: GraphqlContext, info: GraphQLResolveInfo, label: string, value: unknown): Promise<Row | null> | null {
    const id = idOf(value);
    return id === null ? null : this.load(c, info, label, id);
  }

  private refList(label: string, name: string): Field {
    return {
      type: new GraphQLList(this.object(label)),
      resolve: async (r, _a, c, info) => {
        const values = (r[name] as unknown[] | undefined) ?? [];
        const found = await Promise.all(values.map((v) => this.ref(c, info, label, v)));
        return found.filter(Boolean);
      },
    };
  }

  /** `IPAddressAssignedObject`: every model the relation may name. */
  private union(model: ModelDef, name: string, field: FieldDef): GraphQLUnionType {
    const unionName = `${typeName(model.label)}${name.replace(/(^|_)([a-z])/g, (_m, _u, ch: string) => ch.toUpperCase())}`;
    let u = this.unions.get(unionName);
    if (u) return u;
    const targets = genericTargets(field);
    u = new GraphQLUnionType({
      name: unionName,
      types: () => targets.map((l) => this.object(l)),
      resolveType: (v: Row) => typeName(String(v.__label)),
    });
    this.unions.set(unionName, u);
    return u;
  }

  private async genericRef(c: GraphqlContext, info: GraphQLResolveInfo, r: Row, name: string, field: FieldDef & { type: 'generic' }): Promise<Row | null> {
    const label = r[field.typeField];
    const id = idOf(r[name]);
    if (typeof label !== 'string' || id === null) return null;
    const found = await this.load(c, info, label, id);
    return found && { ...found, __label: label };
  }

  private reverseFields(label: string): GraphQLFieldConfigMap<Row, GraphqlContext> {
    const out: GraphQLFieldConfigMap<Row, GraphqlContext> = {};
    for (const rel of this.reverse.get(label) ?? []) {
      out[rel.name] = {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(this.object(rel.child.label)))),
        description: `The ${rel.child.verboseNamePlural ?? `${rel.child.verboseName}s`} naming this object (${rel.fk ?? rel.generic?.idField}), in their default order.`,
        resolve: (parent, _a, c, info) => this.children(c, info, rel).get(Number(parent.id)),
      };
    }
    return out;
  }

  /** The children of every parent of a level in one read: `WHERE <fk>_id = ANY(<parent ids>)`. */
  private children(c: GraphqlContext, info: GraphQLResolveInfo, rel: Reverse) {
    const { select, key } = selected(info, rel.child);
    // the column naming the parent is read whatever is shown: the rows are grouped by it
    return c.batchers.of<number, Row[]>(`children:${rel.child.label}:${rel.fk ?? rel.generic!.idField}:${rel.target}:${key}`, async (ids) => {
      const where = rel.fk
        ? sql`t.${ident(rel.fk)} = ANY(${ids}::bigint[])`
        : sql`t.${ident(rel.generic!.typeField)} = ${rel.target} AND t.${ident(rel.generic!.idField)} = ANY(${ids}::bigint[])`;
      const column = rel.fk ?? rel.generic!.idField;
      const { rows, reps } = await permitted(() => childrenWhere(c.scope, rel.child, where, select, rel.field), { rows: [], reps: [] });
      const byParent = new Map<number, Row[]>(ids.map((id) => [id, []]));
      rows.forEach((row, i) => byParent.get(Number(row[column]))?.push(reps[i]));
      return ids.map((id) => byParent.get(id)!);
    });
  }
}
