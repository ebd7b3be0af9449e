// The value a JSON prefix describes so far, for filling fields while the model writes:
// `{"name": "An` reads as { name: 'An' }. Open strings, arrays and objects are closed; a key
// without a value yet, and a number or literal not finished, are left out.

/** The partial value of a JSON prefix (undefined when nothing usable is there yet). */
export function partialJson(text: string): unknown {
  let at = 0;
  const space = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  // Returns undefined when the value is cut before it means anything.
  const value = (): unknown => {
    space();
    const c = text[at];
    if (c === undefined) return undefined;
    if (c === '{') {
      at++;
      const object: Record<string, unknown> = {};
      for (;;) {
        space();
        if (at >= text.length) return object;
        if (text[at] === '}') {
          at++;
          return object;
        }
        if (text[at] === ',') {
          at++;
          continue;
        }
        const key = string();
        if (key === undefined || !key.closed) return object;
        space();
        if (text[at] !== ':') return object;
        at++;
        const before = at;
        const item = value();
        // An own property even for "__proto__" (as JSON.parse makes it), never the prototype.
        if (item !== undefined) Object.defineProperty(object, key.text, { value: item, writable: true, enumerable: true, configurable: true });
        if (at >= text.length || at === before) return object;
      }
    }
    if (c === '[') {
      at++;
      const array: unknown[] = [];
      for (;;) {
        space();
        if (at >= text.length) return array;
        if (text[at] === ']') {
          at++;
          return array;
        }
        if (text[at] === ',') {
          at++;
          continue;
        }
        const before = at;
        const item = value();
        if (item !== undefined) array.push(item);
        // Cut inside an item that means nothing yet (`1.`, `tr`): the array ends here.
        if (at >= text.length || at === before) return array;
      }
    }
    if (c === '"') return string()?.text;
    const literal = /^(-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?|true|false|null)/.exec(text.slice(at));
    if (literal === null) return undefined;
    at += literal[0].length;
    // A number at the very end may still grow: it is shown as it stands.
    return JSON.parse(literal[0]) as unknown;
  };
  const string = (): { text: string; closed: boolean } | undefined => {
    if (text[at] !== '"') return undefined;
    const start = at++;
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    if (at < text.length) {
      at++;
      return { text: JSON.parse(text.slice(start, at)) as string, closed: true };
    }
    // Cut inside: drop a dangling escape, then close it.
    let body = text.slice(start + 1);
    if (/(^|[^\\])(\\\\)*\\(u[0-9a-fA-F]{0,3})?$/.test(body)) body = body.replace(/\\(u[0-9a-fA-F]{0,3})?$/, '');
    try {
      return { text: JSON.parse(`"${body}"`) as string, closed: false };
    } catch {
      return { text: '', closed: false };
    }
  };
  return value();
}
