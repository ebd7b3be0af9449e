/**
 * Numbers JSON schemas by meaning: two schemas with the same id accept the same instances, so
 * the compiler builds one grammar for both. What an id leaves out or treats as a set:
 *
 * - annotations and unknown keywords (`description`, `title`, vendor extensions);
 * - the conjuncts of an intersection: `allOf` members, a `$ref` beside other keywords, and the
 *   schema's own keywords are one *set* of conjuncts, so nesting, order and repetition of
 *   `allOf`s do not matter (`A ∧ (A ∧ B)` is `A ∧ B`), and an `allOf` of one schema is it;
 * - the order of `anyOf` branches (a set) and of `oneOf` branches (a list in sorted order);
 * - the order of keywords.
 *
 * A `$ref` is numbered by its text, not by what it points to (recursive ones would never end):
 * `rootedRefs` spells every reference from the root before compiling, so that equal texts
 * name one schema whatever resource they are written in. Every other value is numbered by its
 * JSON content, keeping the order of object keys (a `const` object is written in that order).
 *
 * The compiler merges intersections into new schema objects (`mergeSchemas`), whose property
 * schemas are `allOf`s of the merged sides; merged again and again through a recursive
 * definition (the items of an array type that may be one of several array types, say), they
 * nest deeper at every level while meaning the same few intersections. Numbered as sets of
 * conjuncts, they meet again and share a rule instead of multiplying.
 *
 * Each object is numbered once (objects shared by many merged schemas stay cheap). An object
 * whose keywords do not have their shape (`wellFormed` false) gets an id of its own, so a
 * schema that must be refused is never answered with the grammar of one that was not.
 */
export class SchemaIds {
  readonly #schemaIds = new WeakMap<object, number>();
  readonly #dataIds = new WeakMap<object, number>();
  readonly #byShape = new Map<string, number>();
  // Conjuncts of each intersection id, in sorted order.
  readonly #conjuncts = new Map<number, readonly number[]>();
  // The schema each `not` alone negates, by the id of that `not`.
  readonly #negated = new Map<number, number>();
  readonly #true: number;
  readonly #false: number;
  #unique = 0;

  constructor(private readonly keywords: SchemaKeywords) {
    this.#true = this.#intern('T');
    this.#false = this.#intern('F');
  }

  /**
   * The id of a schema. `trusted`: the object is the compiler's own merge of checked schemas
   * (its keywords may use the merged spellings: a list of patterns, excluded values).
   */
  of(schema: unknown, trusted = false): number {
    if (schema === true) return this.#true;
    if (schema === false) return this.#false;
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return this.#intern(`!${this.data(schema)}`);
    if (trusted) return this.#number(schema as SchemaObject, true);
    let id = this.#schemaIds.get(schema);
    if (id === undefined) this.#schemaIds.set(schema, (id = this.#number(schema as SchemaObject, false)));
    return id;
  }

  #number(schema: SchemaObject, trusted: boolean): number {
    if (!trusted && !this.keywords.wellFormed(schema)) return this.#intern(`!${this.#unique++}`);
    const conjuncts: number[] = [];
    const add = (id: number): void => void conjuncts.push(...(this.#conjuncts.get(id) ?? [id]));
    if (typeof schema.$ref === 'string') {
      add(this.#intern(`r${JSON.stringify(schema.$ref)}`));
      if (this.keywords.onlyRef(schema)) return conjuncts[0]!;
    }
    if (Array.isArray(schema.allOf)) for (const member of schema.allOf) add(this.of(member));
    const own = Object.keys(schema)
      .filter((k) => k !== '$ref' && k !== 'allOf' && this.keywords.asserts(k))
      .sort();
    if (own.length > 0) {
      const id = this.#intern(`o${own.map((k) => `${JSON.stringify(k)}:${this.#keywordValue(k, schema[k])}`).join(',')}`);
      if (own.length === 1 && own[0] === 'not') this.#negated.set(id, this.of(schema.not));
      add(id);
    }
    if (conjuncts.includes(this.#false)) return this.#false;
    const set = [...new Set(conjuncts)].filter((id) => id !== this.#true).sort((a, b) => a - b);
    // (A schema beside its own negation, `A ∧ ¬A`, holds for nothing.)
    if (set.some((id) => this.#negated.has(id) && (this.#conjuncts.get(this.#negated.get(id)!) ?? [this.#negated.get(id)!]).every((c) => set.includes(c))))
      return this.#false;
    if (set.length === 0) return this.#true;
    if (set.length === 1) return set[0]!;
    const id = this.#intern(`&${set.join(',')}`);
    this.#conjuncts.set(id, set);
    return id;
  }

  // A keyword's value, numbered as what it holds: schemas, lists or maps of schemas, or data.
  #keywordValue(keyword: string, value: unknown): string {
    const list = (values: readonly unknown[]): number[] => values.map((v) => this.of(v));
    switch (keyword) {
      case 'not':
      case 'additionalProperties':
      case 'additionalItems':
      case 'propertyNames':
      case 'contains':
      case 'if':
      case 'then':
      case 'else':
      case 'unevaluatedProperties':
      case 'unevaluatedItems':
        return `s${this.of(value)}`;
      case 'items':
      case 'prefixItems':
        return Array.isArray(value) ? `l${list(value).join(',')}` : `s${this.of(value)}`;
      case 'anyOf':
        return Array.isArray(value) ? `a${[...new Set(list(value))].sort((a, b) => a - b).join(',')}` : `d${this.data(value)}`;
      case 'oneOf':
        return Array.isArray(value)
          ? `x${list(value)
              .sort((a, b) => a - b)
              .join(',')}`
          : `d${this.data(value)}`;
      case 'properties':
      case 'patternProperties':
      case 'dependentSchemas':
      case 'dependencies':
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return `d${this.data(value)}`;
        // (`dependencies` lists are names, its other values schemas.)
        return `m${Object.entries(value)
          .map(([name, v]) => `${JSON.stringify(name)}:${Array.isArray(v) ? `d${this.data(v)}` : this.of(v)}`)
          .join(',')}`;
      default:
        return `d${this.data(value)}`;
    }
  }

  /** The id of a JSON value by content (object keys in their order). */
  data(value: unknown): number {
    if (value === null || typeof value !== 'object') return this.#intern(`v${JSON.stringify(value) ?? 'undefined'}`);
    let id = this.#dataIds.get(value);
    if (id === undefined) {
      const shape = Array.isArray(value)
        ? `a${value.map((v) => this.data(v)).join(',')}`
        : `o${Object.entries(value)
            .map(([k, v]) => `${JSON.stringify(k)}:${this.data(v)}`)
            .join(',')}`;
      id = this.#intern(shape);
      this.#dataIds.set(value, id);
    }
    return id;
  }

  #intern(shape: string): number {
    let id = this.#byShape.get(shape);
    if (id === undefined) this.#byShape.set(shape, (id = this.#byShape.size));
    return id;
  }
}

interface SchemaObject {
  readonly [keyword: string]: unknown;
}

/** What the numbering needs to know of the compiler's reading of keywords. */
export interface SchemaKeywords {
  /** Whether a keyword asserts something (else it is an annotation, left out). */
  asserts(keyword: string): boolean;
  /** Whether a schema with a `$ref` is that reference alone (its siblings ignored or annotations). */
  onlyRef(schema: SchemaObject): boolean;
  /** Whether every keyword of the object has its shape (the compiler refuses it otherwise). */
  wellFormed(schema: SchemaObject): boolean;
}
