/**
 * Tool calls as a grammar: one or more calls of the given tools, each a JSON object
 * `{"name": "<tool>", "<arguments key>": <arguments>}` between the model's call markers (Qwen
 * and Hermes write `<tool_call>\n…\n</tool_call>`; Llama 3 a bare object), the arguments valid
 * against the tool's JSON Schema exactly (its grammar embedded, not relaxed). With `after`,
 * the grammar of what follows text that already wrote the calls' opening (a trigger that
 * started them: free text, then constrained calls).
 */
import { rx } from '../ir/byte-regex.ts';
import { expr, GrammarBuilder, type Expr, type GrammarIR, type PermutationDef } from '../ir/grammar-ir.ts';
import { jsonSchemaGrammar, type JsonSchemaOptions } from './json-schema/compile-json-schema.ts';

/** How a model writes its tool calls around the `{"name": …, …}` object. */
export interface ToolCallFormat {
  /** Before each call's object (e.g. `<tool_call>\n`; may be empty). */
  readonly open: string;
  /** After it (e.g. `\n</tool_call>`). */
  readonly close: string;
  /** Between two calls. */
  readonly between: string;
  /** The key of the arguments object (`arguments`; Llama 3 writes `parameters`). */
  readonly argumentsKey: string;
}

/** A tool a call may name: its arguments' JSON Schema. */
export interface ToolDefinition {
  readonly name: string;
  readonly parameters: unknown;
}

export interface ToolCallsOptions {
  /** Several calls, `between` apart (default true); else exactly one. */
  readonly parallel?: boolean;
  /** Text already written: a prefix of every call's start (`open` + `{"name": `). */
  readonly after?: string;
  /** For the arguments' schemas (whitespace etc.). */
  readonly schemaOptions?: JsonSchemaOptions;
}

/** The start every call shares, up to its tool's name. */
export function toolCallStart(format: ToolCallFormat): string {
  return `${format.open}{"name": `;
}

/** The grammar of tool calls of `tools` written in `format`. */
export function toolCallsGrammar(tools: readonly ToolDefinition[], format: ToolCallFormat, options: ToolCallsOptions = {}): GrammarIR {
  if (tools.length === 0) throw new RangeError('tool calls need at least one tool');
  const start = toolCallStart(format);
  const after = options.after ?? '';
  if (!start.startsWith(after)) throw new RangeError(`${JSON.stringify(after)} does not start a tool call (${JSON.stringify(start)})`);
  const builder = new GrammarBuilder();
  const literal = (text: string): Expr => (text === '' ? expr.empty : expr.lexeme(builder.lexeme({ name: JSON.stringify(text), regex: rx.literal(text) })));
  // Each tool's call after the shared start: its name, its arguments, the close.
  const bodies = tools.map((tool, i) => {
    const args = embedGrammar(builder, jsonSchemaGrammar(tool.parameters, options.schemaOptions).grammar, `tool${i}:`);
    return expr.seq([literal(`${JSON.stringify(tool.name)}, ${JSON.stringify(format.argumentsKey)}: `), args, literal(`}${format.close}`)]);
  });
  builder.rules.set('body', expr.alt(bodies));
  const call = expr.seq([literal(start), expr.ref('body')]);
  const first = expr.seq([literal(start.slice(after.length)), expr.ref('body')]);
  const more = options.parallel === false ? expr.empty : expr.repeat(expr.seq([literal(format.between), call]), 0, Infinity);
  builder.rules.set('start', expr.seq([first, more]));
  return { ...builder.build('start'), allowEmpty: true };
}

/**
 * Copies `ir` into `builder`, its rules renamed with `prefix` and its lexemes shared with
 * equal ones there; returns a reference to its start rule. A grammar with ignored lexemes
 * cannot be embedded (they would apply between every lexeme of the host).
 */
export function embedGrammar(builder: GrammarBuilder, ir: GrammarIR, prefix: string): Expr {
  if (ir.ignore.length > 0) throw new RangeError('a grammar with ignored lexemes cannot be embedded');
  const lexemes = new Map<number, number>();
  // Excluded lexemes first: a lexeme's identity includes what it excludes.
  const lexeme = (index: number): number => {
    let mapped = lexemes.get(index);
    if (mapped === undefined) {
      const def = ir.lexemes[index]!;
      const excludes = def.excludes?.map(lexeme);
      mapped = builder.lexeme(excludes === undefined ? def : { ...def, excludes });
      lexemes.set(index, mapped);
    }
    return mapped;
  };
  const copy = (e: Expr): Expr => {
    switch (e.kind) {
      case 'lexeme':
        return expr.lexeme(lexeme(e.index));
      case 'ref':
        return expr.ref(prefix + e.name);
      case 'seq':
        return { kind: 'seq', items: e.items.map(copy) };
      case 'alt':
        return { kind: 'alt', items: e.items.map(copy) };
      case 'repeat':
        return { kind: 'repeat', item: copy(e.item), min: e.min, max: e.max };
    }
  };
  for (const [name, body] of ir.rules) builder.rules.set(prefix + name, copy(body));
  for (const [name, def] of ir.permutations ?? []) {
    const permutation: PermutationDef = {
      ...def,
      members: def.members.map(copy),
      other: def.other === null ? null : copy(def.other),
      separator: copy(def.separator),
      close: copy(def.close),
    };
    builder.permutations.set(prefix + name, permutation);
  }
  return expr.ref(prefix + ir.start);
}
