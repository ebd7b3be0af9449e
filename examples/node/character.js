// What both scripts ask the model for: a character of a story, as JSON this schema accepts.
export const CHARACTER = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 20 }, age: { type: 'integer', minimum: 1, maximum: 99 } },
  required: ['name', 'age'],
  additionalProperties: false,
};
