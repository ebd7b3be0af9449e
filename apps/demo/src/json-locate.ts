// Where a JSON Schema error is in the schema's text: the span of the value a JSON pointer
// names, found by a small scanner over the text (JSON.parse keeps no positions).

/** A byte-free span: UTF-16 offsets into the text, as the editor needs them. */
export interface TextSpan {
  readonly start: number;
  readonly end: number;
}

/** The span of the value at `pointer` (RFC 6901) in `text`, or null if the text has none there. */
export function spanOfPointer(text: string, pointer: string): TextSpan | null {
  const path =
    pointer === ''
      ? []
      : pointer
          .slice(1)
          .split('/')
          .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const spans = new Map<string, TextSpan>();
  let at = 0;
  const space = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  const string = (): string => {
    const start = at++;
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (key: string): void => {
    space();
    const start = at;
    const c = text[at];
    if (c === '{') {
      at++;
      for (space(); text[at] !== '}' && at < text.length; space()) {
        if (text[at] !== '"') break; // not JSON here: stop rather than loop
        const name = string();
        space();
        at++; // :
        value(`${key}/${name}`);
        space();
        if (text[at] === ',') at++;
      }
      at++;
    } else if (c === '[') {
      at++;
      for (let i = 0; space(), text[at] !== ']' && at < text.length; i++) {
        const before = at;
        value(`${key}/${i}`);
        space();
        if (text[at] === ',') at++;
        else if (at === before) break; // nothing consumed (`[}`): stop rather than loop
      }
      at++;
    } else if (c === '"') {
      string();
    } else {
      while (at < text.length && !',]} \t\n\r'.includes(text[at]!)) at++;
    }
    spans.set(key, { start, end: at });
  };
  try {
    value('');
  } catch {
    return null;
  }
  return spans.get(path.map((p) => `/${p}`).join('')) ?? null;
}
