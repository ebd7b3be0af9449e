// Why a pasted schema cannot become a form, in plain words and with its place.

/** A sentence for a person, from a compile error (or a JSON syntax error) of `source`. */
export function explainSchemaError(error: unknown, source: string): string {
  const e = error as { name?: string; code?: string; message?: string; pointer?: string; keyword?: string; limit?: string };
  const message = (e.message ?? String(error)).replace(/^#?[^:]*: /, '');
  if (error instanceof SyntaxError) {
    const position = /position (\d+)/.exec(e.message ?? '');
    if (position === null) return `The schema is not valid JSON: ${e.message}.`;
    const before = source.slice(0, Number(position[1])).split('\n');
    return `The schema is not valid JSON: something is wrong at line ${before.length}, column ${before.at(-1)!.length + 1}.`;
  }
  const where = e.pointer === undefined ? '' : ` at ${place(e.pointer)}`;
  switch (e.code) {
    case 'unsupported':
      return `This form can't be checked exactly: the keyword “${e.keyword}”${where} is not supported (${message}). Remove it or simplify that part.`;
    case 'invalid_schema':
      return `This is not a valid JSON Schema${where}: ${message}.`;
    case 'limit_exceeded':
      return `The schema is too large to compile on this device (limit ${e.limit ?? 'reached'}${where}): ${message}.`;
    default:
      return `The schema could not be compiled: ${message}.`;
  }
}

// "/properties/lines/items" → "properties › lines › items"; "" → "the top level".
function place(pointer: string): string {
  if (pointer === '' || pointer === '#') return 'the top level';
  return pointer
    .replace(/^#?\//, '')
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join(' › ');
}
