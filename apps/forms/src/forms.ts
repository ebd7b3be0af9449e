// The app's built-in forms: a JSON Schema each (with titles for the labels), and a sample of
// the kind of text a person would paste.

/** A form: its schema decides the fields, their order and what the model may write. */
export interface FormDefinition {
  readonly id: string;
  readonly title: string;
  readonly schema: Record<string, unknown>;
  readonly sample: string;
  /** Tokens a fill may take (the budget keeps the JSON complete within it). */
  readonly maxTokens: number;
  /** Made by the person from a pasted schema (kept in IndexedDB), not built in. */
  readonly custom?: boolean;
}

const text = (title: string, maxLength: number, extra: object = {}): object => ({ type: 'string', title, maxLength, ...extra });

export const BUILT_IN_FORMS: readonly FormDefinition[] = [
  {
    id: 'contact',
    title: 'Contact card',
    maxTokens: 120,
    sample: 'Hi! It was lovely to meet you at the fair. I am Anna Berg, I run a small bakery in Lund. Call me on +46 70 123 45 67 or write to anna@bergsbageri.se. Best, Anna',
    schema: {
      type: 'object',
      title: 'Contact card',
      properties: {
        name: text('Name', 40, { minLength: 1 }),
        email: text('Email', 60, { format: 'email' }),
        phone: text('Phone', 24, { pattern: '^\\+?[0-9 ]{6,20}$' }),
        company: text('Company', 40),
        city: text('City', 30),
      },
      required: ['name', 'email'],
      additionalProperties: false,
    },
  },
  {
    id: 'invoice',
    title: 'Invoice',
    maxTokens: 220,
    sample: 'Invoice INV-0042 to Green Garden Ltd, dated 2024-03-14. Two bags of soil at 12.50 EUR each and one rake at 24.00 EUR. Payment due in 30 days.',
    schema: {
      type: 'object',
      title: 'Invoice',
      properties: {
        number: text('Invoice number', 12, { pattern: '^INV-[0-9]{4}$' }),
        date: text('Date', 10, { format: 'date' }),
        customer: text('Customer', 40),
        currency: { title: 'Currency', enum: ['EUR', 'USD', 'GBP', 'SEK'] },
        lines: {
          type: 'array',
          title: 'Line items',
          minItems: 1,
          maxItems: 4,
          items: {
            type: 'object',
            title: 'Line',
            properties: { description: text('Description', 30), quantity: { type: 'integer', title: 'Quantity', minimum: 1, maximum: 999 }, unit_price: { type: 'number', title: 'Unit price', minimum: 0, maximum: 100000 } },
            required: ['description', 'quantity', 'unit_price'],
            additionalProperties: false,
          },
        },
        due_days: { type: 'integer', title: 'Due in (days)', minimum: 0, maximum: 365 },
      },
      required: ['number', 'date', 'customer', 'currency', 'lines'],
      additionalProperties: false,
    },
  },
  {
    id: 'bug',
    title: 'Bug report',
    maxTokens: 180,
    sample: 'The export button does nothing on Firefox 121 (Windows 11). Steps: open a report, click Export, choose PDF. Expected a download, got nothing; the console shows a CSP error. Pretty annoying, blocks our monthly close.',
    schema: {
      type: 'object',
      title: 'Bug report',
      properties: {
        title: text('Title', 60, { minLength: 3 }),
        severity: { title: 'Severity', enum: ['low', 'medium', 'high', 'critical'] },
        browser: text('Browser', 30),
        operating_system: text('Operating system', 30),
        steps: { type: 'array', title: 'Steps to reproduce', minItems: 1, maxItems: 5, items: text('Step', 60) },
        expected: text('Expected', 80),
        actual: text('Actual', 80),
      },
      required: ['title', 'severity', 'steps'],
      additionalProperties: false,
    },
  },
  {
    id: 'travel',
    title: 'Travel booking',
    maxTokens: 160,
    sample: 'Could you book me a train from Paris to Milan on 12 May, coming back the 16th? Two adults, second class is fine, window seats if possible. — Marc Duval',
    schema: {
      type: 'object',
      title: 'Travel booking',
      properties: {
        traveller: text('Traveller', 40),
        from: text('From', 30, { minLength: 2 }),
        to: text('To', 30, { minLength: 2 }),
        departure: text('Departure date', 10, { format: 'date' }),
        return: text('Return date', 10, { format: 'date' }),
        passengers: { type: 'integer', title: 'Passengers', minimum: 1, maximum: 9 },
        mode: { title: 'Mode', enum: ['train', 'plane', 'bus', 'car'] },
        class: { title: 'Class', enum: ['first', 'second', 'economy', 'business'] },
      },
      required: ['from', 'to', 'departure', 'passengers', 'mode'],
      additionalProperties: false,
    },
  },
];
