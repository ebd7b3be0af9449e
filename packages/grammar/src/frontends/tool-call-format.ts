/**
 * How a model writes its tool calls, apart from the grammar of them (tool-calls.ts): what a
 * page needs to find calls in text, without the compiler.
 */

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

/** The start every call shares, up to its tool's name. */
export function toolCallStart(format: ToolCallFormat): string {
  return `${format.open}{"name": `;
}
