// Ready examples for the demo: one or more per constraint kind, each with a prompt that
// suits stories260K (a tiny model trained on children's stories).

/** Constraint kinds the demo offers. */
export type ExampleKind = 'json-schema' | 'regex' | 'gbnf' | 'lark' | 'ebnf';

export interface Example {
  readonly id: string;
  readonly name: string;
  readonly kind: ExampleKind;
  readonly source: string;
  readonly prompt: string;
  readonly maxTokens: number;
}

const json = (value: unknown): string => JSON.stringify(value, null, 2);

export const EXAMPLES: readonly Example[] = [
  {
    id: 'tool-call',
    name: 'Tool call (JSON Schema)',
    kind: 'json-schema',
    prompt: 'Lily wanted to know the weather in the park, so she asked her phone.',
    maxTokens: 120,
    source: json({
      type: 'object',
      properties: {
        name: { const: 'get_weather' },
        arguments: {
          type: 'object',
          properties: {
            location: { type: 'string', minLength: 2, maxLength: 24 },
            unit: { enum: ['celsius', 'fahrenheit'] },
            days: { type: 'integer', minimum: 1, maximum: 7 },
          },
          required: ['location', 'unit'],
          additionalProperties: false,
        },
      },
      required: ['name', 'arguments'],
      additionalProperties: false,
    }),
  },
  {
    id: 'invoice',
    name: 'Invoice (JSON Schema)',
    kind: 'json-schema',
    prompt: 'Tim sold three red balls and a toy car at the market.',
    maxTokens: 200,
    source: json({
      type: 'object',
      properties: {
        invoice_number: { type: 'string', pattern: '^INV-[0-9]{4}$' },
        date: { type: 'string', format: 'date' },
        customer: { type: 'string', maxLength: 20 },
        currency: { enum: ['EUR', 'USD', 'GBP'] },
        items: {
          type: 'array',
          minItems: 1,
          maxItems: 3,
          items: {
            type: 'object',
            properties: {
              description: { type: 'string', maxLength: 16 },
              quantity: { type: 'integer', minimum: 1, maximum: 99 },
              unit_price: { type: 'number', minimum: 0, maximum: 1000 },
            },
            required: ['description', 'quantity', 'unit_price'],
            additionalProperties: false,
          },
        },
        paid: { type: 'boolean' },
      },
      required: ['invoice_number', 'date', 'customer', 'currency', 'items', 'paid'],
      additionalProperties: false,
    }),
  },
  {
    id: 'date',
    name: 'Date (regex)',
    kind: 'regex',
    prompt: 'The big party was on',
    maxTokens: 16,
    source: '(19|20)[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])',
  },
  {
    id: 'sql',
    name: 'SQL on one table (Lark)',
    kind: 'lark',
    prompt: 'Ben asked the computer which toys cost less than ten coins.',
    maxTokens: 60,
    source: [
      '// Queries on one table, toys(id, name, colour, price): no other column or table can appear.',
      'start: "SELECT " columns " FROM toys" where? order? limit? ";"',
      'columns: "*" | column (", " column)*',
      'column: "id" | "name" | "colour" | "price"',
      'where: " WHERE " condition (" AND " condition)*',
      'condition: column " " OP " " value',
      'OP: "=" | "<" | ">" | "<=" | ">=" | "<>"',
      'value: NUMBER | STRING',
      'order: " ORDER BY " column (" ASC" | " DESC")?',
      'limit: " LIMIT " NUMBER',
      'NUMBER: /[0-9]{1,4}/',
      "STRING: /'[a-z ]{0,12}'/",
    ].join('\n'),
  },
  {
    id: 'arithmetic',
    name: 'Arithmetic (GBNF)',
    kind: 'gbnf',
    prompt: 'Sam counted his apples and wrote down the sum:',
    maxTokens: 32,
    source: [
      '# Arithmetic with precedence; the answer ends with a newline.',
      'root   ::= expr "\\n"',
      'expr   ::= term (("+" | "-") term)*',
      'term   ::= factor (("*" | "/") factor)*',
      'factor ::= [0-9]{1,3} | "(" expr ")"',
    ].join('\n'),
  },
  {
    id: 'shopping',
    name: 'Shopping list (EBNF)',
    kind: 'ebnf',
    prompt: 'Mom gave Lily a list for the shop:',
    maxTokens: 60,
    source: [
      '/* Two to four lines: a count, then one of a few things. */',
      'root  ::= line line line? line?',
      "line  ::= '- ' count ' ' thing #x0A",
      'count ::= [1-9]',
      "thing ::= 'apples' | 'eggs' | 'bread' | 'milk' | 'cookies'",
    ].join('\n'),
  },
];
