import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formFields, formInstruction, formPrompt } from '../src/form-prompt.ts';

const schema = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(import.meta.dirname, '..', 'src', 'schemas', `${name}.schema.json`), 'utf8')) as Record<string, unknown>;

describe('formInstruction', () => {
  it('names every field with its title, description and kind, nested fields indented under theirs', () => {
    expect(formInstruction('Invoice', schema('invoice')).split('\n')).toEqual([
      'You fill in the form “Invoice” from the text the user sends. Answer with the form as one JSON object with these fields:',
      '- number (Invoice number: Like INV-0042): text, required',
      '- date (Date): a date (YYYY-MM-DD), required',
      '- customer (Customer): text, required',
      '- currency (Currency): one of "EUR", "USD", "GBP", "SEK", required',
      '- lines (Line items: One per product or service billed): a list (at most 4) of items with these fields, required',
      '  - description (Description): text, required',
      '  - quantity (Quantity): a whole number from 1 to 999, required',
      '  - unit_price (Unit price: The price of one, without the currency): a number from 0 to 100000, required',
      '- due_days (Due in (days): Days until payment is due): a whole number from 0 to 365',
      'Take every value from the text, written as the text writes it (dates as YYYY-MM-DD). Leave out an optional field the text does not give; never invent one.',
    ]);
  });

  it('describes lists of plain values, yes/no fields, nested objects and local $refs', () => {
    const fields = formFields({
      type: 'object',
      $defs: {
        place: { type: 'object', title: 'Place', properties: { city: { type: 'string', title: 'City' }, zip: { type: 'string' } }, required: ['city'] },
      },
      properties: {
        tags: { type: 'array', title: 'Tags', items: { type: 'string' } },
        urgent: { type: 'boolean', description: 'Whether it cannot wait' },
        to: { $ref: '#/$defs/place', title: 'Destination' },
        size: { type: ['integer', 'null'], maximum: 9 },
      },
      required: ['to'],
    });
    expect(fields).toEqual([
      { path: 'tags', depth: 0, title: 'Tags', description: null, kind: 'a list of texts', required: false },
      { path: 'urgent', depth: 0, title: null, description: 'Whether it cannot wait', kind: 'true or false', required: false },
      { path: 'to', depth: 0, title: 'Destination', description: null, kind: 'an object with these fields', required: true },
      { path: 'to.city', depth: 1, title: 'City', description: null, kind: 'text', required: true },
      { path: 'to.zip', depth: 1, title: null, description: null, kind: 'text', required: false },
      { path: 'size', depth: 0, title: null, description: null, kind: 'a whole number of at most 9 or null', required: false },
    ]);
  });

  it('ends on a recursive schema', () => {
    const tree = { type: 'object', title: 'Node', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } } };
    const fields = formFields(tree);
    expect(fields.length).toBeGreaterThan(2);
    expect(Math.max(...fields.map((f) => f.depth))).toBeLessThan(5);
    expect(fields.map((f) => f.path)).toContain('children[].children[].name');
  });
});

describe('formPrompt', () => {
  const contact = { title: 'Contact card', schema: schema('contact') };

  it('gives an instruct model the instruction as the system message and the text as the user message', () => {
    const prompt = formPrompt(contact, '  Hi, Anna here.\n', true);
    expect(prompt).toEqual({
      messages: [
        { role: 'system', content: formInstruction('Contact card', contact.schema) },
        { role: 'user', content: 'Hi, Anna here.' },
      ],
    });
    expect(formInstruction('Contact card', contact.schema)).toContain('- email (Email): an email address, required');
  });

  it('gives a model without a chat template the text and the form title', () => {
    expect(formPrompt(contact, 'Hi, Anna here.', false)).toEqual({ prompt: 'Hi, Anna here.\n\nContact card:\n' });
  });

  it('keeps the system message the same across fills of a form (its KV cache is reused)', () => {
    const first = formPrompt(contact, 'one text', true) as { messages: { content: string }[] };
    const second = formPrompt(contact, 'another text', true) as { messages: { content: string }[] };
    expect(first.messages[0]).toEqual(second.messages[0]);
  });
});
