// What the model reads before it fills a form. An instruct model gets chat messages: a system
// message naming the form's fields (titles, descriptions, what kind of value, from the JSON
// Schema) and asking for the values the text gives, then the pasted text as the user's
// message. A model without a chat template (stories260K) gets the text and the form's title.
// The schema itself is the constraint either way: the instruction says what to write, the
// schema decides what can be written.
import type { ChatMessage } from '@sieve/runtime/client';

type Schema = Readonly<Record<string, unknown>>;

/** One field of a form: its place (`lines[].quantity`), its labels and what it holds. */
export interface FormField {
  readonly path: string;
  /** Nesting depth: 0 for the form's own fields, 1 for the fields of their objects or list items. */
  readonly depth: number;
  readonly title: string | null;
  readonly description: string | null;
  /** The kind of value in words: `text`, `a whole number from 1 to 9`, `one of "EUR", "USD"`. */
  readonly kind: string;
  readonly required: boolean;
}

// Nested objects are described this deep at most (a recursive schema would never end).
const MAX_DEPTH = 4;

/** The fields of an object schema, each followed by the fields nested in it. */
export function formFields(schema: Schema): FormField[] {
  const fields: FormField[] = [];
  collectFields(schema, schema, '', 0, fields);
  return fields;
}

function collectFields(root: Schema, objectSchema: Schema, prefix: string, depth: number, out: FormField[]): void {
  const object = resolved(root, objectSchema);
  const properties = asSchema(object['properties']);
  if (properties === null || depth >= MAX_DEPTH) return;
  const required = Array.isArray(object['required']) ? (object['required'] as unknown[]) : [];
  for (const [name, value] of Object.entries(properties)) {
    const property = asSchema(value);
    if (property === null) continue;
    const field = resolved(root, property);
    const path = `${prefix}${name}`;
    out.push({
      path,
      depth,
      title: text(field['title']),
      description: text(field['description']),
      kind: kindOf(root, field),
      required: required.includes(name),
    });
    const items = asSchema(field['items']);
    if (items !== null) collectFields(root, items, `${path}[].`, depth + 1, out);
    else collectFields(root, field, `${path}.`, depth + 1, out);
  }
}

/** The system message: the form's fields and what to write. */
export function formInstruction(title: string, schema: Schema): string {
  const lines = formFields(schema).map((field) => {
    const name = field.path.slice(field.path.lastIndexOf('.') + 1);
    const label = [field.title, field.description].filter((part) => part !== null && part !== name).join(': ');
    return `${'  '.repeat(field.depth)}- ${name}${label === '' ? '' : ` (${label})`}: ${field.kind}${field.required ? ', required' : ''}`;
  });
  return [
    `You fill in the form “${title}” from the text the user sends. Answer with the form as one JSON object with these fields:`,
    ...lines,
    'Take every value from the text, written as the text writes it (dates as YYYY-MM-DD). Leave out an optional field the text does not give; never invent one.',
  ].join('\n');
}

/** What a fill asks the model: chat messages for a model with a chat template, else a raw prompt. */
export function formPrompt(
  form: { readonly title: string; readonly schema: Schema },
  pasted: string,
  hasChatTemplate: boolean,
): { readonly messages: ChatMessage[] } | { readonly prompt: string } {
  if (!hasChatTemplate) return { prompt: `${pasted.trim()}\n\n${form.title}:\n` };
  return {
    messages: [
      { role: 'system', content: formInstruction(form.title, form.schema) },
      { role: 'user', content: pasted.trim() },
    ],
  };
}

// The kind of value a field holds, in words.
function kindOf(root: Schema, field: Schema): string {
  if (Array.isArray(field['enum'])) return `one of ${field['enum'].map((value) => JSON.stringify(value)).join(', ')}`;
  if ('const' in field) return `always ${JSON.stringify(field['const'])}`;
  const types = Array.isArray(field['type']) ? (field['type'] as unknown[]) : [field['type']];
  const kinds = types.map((type) => typeKind(root, field, type));
  return kinds.join(' or ');
}

const FORMATS: Readonly<Record<string, string>> = {
  date: 'a date (YYYY-MM-DD)',
  time: 'a time (HH:MM:SS)',
  'date-time': 'a date and time (ISO 8601)',
  email: 'an email address',
  uri: 'a URL',
};

function typeKind(root: Schema, field: Schema, type: unknown): string {
  const range = (): string => {
    const [min, max] = [field['minimum'], field['maximum']];
    if (typeof min === 'number' && typeof max === 'number') return ` from ${min} to ${max}`;
    if (typeof min === 'number') return ` of at least ${min}`;
    return typeof max === 'number' ? ` of at most ${max}` : '';
  };
  switch (type) {
    case 'string':
      return FORMATS[String(field['format'])] ?? 'text';
    case 'integer':
      return `a whole number${range()}`;
    case 'number':
      return `a number${range()}`;
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'array': {
      const items = asSchema(field['items']);
      const most = typeof field['maxItems'] === 'number' ? ` (at most ${field['maxItems']})` : '';
      if (items === null) return `a list${most}`;
      const item = resolved(root, items);
      return asSchema(item['properties']) === null ? `a list${most} of ${plural(kindOf(root, item))}` : `a list${most} of items with these fields`;
    }
    case 'object':
      return asSchema(field['properties']) === null ? 'an object' : 'an object with these fields';
    default:
      return asSchema(field['properties']) === null ? 'a value' : 'an object with these fields';
  }
}

// "text" → "texts", "a whole number from 1 to 9" → "whole numbers from 1 to 9".
function plural(kind: string): string {
  if (kind === 'text') return 'texts';
  return kind.replace(/^an? (\S+)/, (_, noun: string) => `${noun}s`);
}

// A local `$ref` (`#/$defs/line`) followed, at most a few times in a row.
function resolved(root: Schema, schema: Schema): Schema {
  let current = schema;
  for (let hops = 0; hops < MAX_DEPTH && typeof current['$ref'] === 'string'; hops++) {
    const target = pointer(root, current['$ref']);
    if (target === null) break;
    current = { ...target, ...withoutRef(current) };
  }
  return current;
}

function withoutRef(schema: Schema): Schema {
  const rest: Record<string, unknown> = { ...schema };
  delete rest['$ref'];
  return rest;
}

function pointer(root: Schema, ref: string): Schema | null {
  if (!ref.startsWith('#')) return null;
  let at: unknown = root;
  for (const part of ref
    .slice(1)
    .split('/')
    .filter((p) => p !== '')) {
    const key = decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~');
    at = asSchema(at)?.[key];
  }
  return asSchema(at);
}

function asSchema(value: unknown): Schema | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}
