/**
 * Tool calls as a grammar: one or more calls of the given tools, each a JSON object
 * `{"name": "<tool>", "<arguments key>": <arguments>}` between the model's call markers (Qwen
 * and Hermes write `<tool_call>\n…\n</tool_call>`; Llama 3 a bare object), the arguments valid
 * against the tool's JSON Schema exactly (its grammar embedded, not relaxed). With `after`,
 * the grammar of what follows text that already wrote the calls' opening (a trigger that
 * started them: free text, then constrained calls).
 */
import { rx } from '../ir/byte-regex.ts';
import { embedGrammar } from '../ir/embed-grammar.ts';
import { expr, GrammarBuilder, type Expr, type GrammarIR } from '../ir/grammar-ir.ts';
import { jsonSchemaGrammar, type JsonSchemaOptions } from './json-schema/compile-json-schema.ts';
import { toolCallStart, type ToolCallFormat } from './tool-call-format.ts';

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
