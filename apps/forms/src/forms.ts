// The app's built-in forms: a JSON Schema each (with titles for the labels), and a sample of
// the kind of text a person would paste. The schemas are imported with `?sieve`: the build
// precomputes their mask indexes for the default model's tokenizer (see vite.config.ts).
import type { MaskIndexSource } from '@sieve/runtime/client';
import contact, { indexInfo as contactIndex } from './schemas/contact.schema.json?sieve';
import invoice, { indexInfo as invoiceIndex } from './schemas/invoice.schema.json?sieve';
import bug, { indexInfo as bugIndex } from './schemas/bug.schema.json?sieve';
import travel, { indexInfo as travelIndex } from './schemas/travel.schema.json?sieve';

/** A form: its schema decides the fields, their order and what the model may write. */
export interface FormDefinition {
  readonly id: string;
  readonly title: string;
  readonly schema: Record<string, unknown>;
  /** The schema's mask index, built ahead of time (built-in forms only)… */
  readonly index?: MaskIndexSource;
  /** …for this tokenizer's vocabulary (`qwen3`): it serves only models with that tokenizer. */
  readonly indexTokenizer?: string;
  readonly sample: string;
  /** Tokens a fill may take (the budget keeps the JSON complete within it). */
  readonly maxTokens: number;
  /** Made by the person from a pasted schema (kept in IndexedDB), not built in. */
  readonly custom?: boolean;
}

export const BUILT_IN_FORMS: readonly FormDefinition[] = [
  {
    id: 'contact',
    title: 'Contact card',
    maxTokens: 120,
    sample:
      'Hi! It was lovely to meet you at the fair. I am Anna Berg, I run a small bakery in Lund. Call me on +46 70 123 45 67 or write to anna@bergsbageri.se. Best, Anna',
    schema: contact.schema as Record<string, unknown>,
    index: contact.index,
    indexTokenizer: contactIndex.tokenizer,
  },
  {
    id: 'invoice',
    title: 'Invoice',
    maxTokens: 220,
    sample: 'Invoice INV-0042 to Green Garden Ltd, dated 2024-03-14. Two bags of soil at 12.50 EUR each and one rake at 24.00 EUR. Payment due in 30 days.',
    schema: invoice.schema as Record<string, unknown>,
    index: invoice.index,
    indexTokenizer: invoiceIndex.tokenizer,
  },
  {
    id: 'bug',
    title: 'Bug report',
    maxTokens: 180,
    sample:
      'The export button does nothing on Firefox 121 (Windows 11). Steps: open a report, click Export, choose PDF. Expected a download, got nothing; the console shows a CSP error. Pretty annoying, blocks our monthly close.',
    schema: bug.schema as Record<string, unknown>,
    index: bug.index,
    indexTokenizer: bugIndex.tokenizer,
  },
  {
    id: 'travel',
    title: 'Travel booking',
    maxTokens: 160,
    sample:
      'Could you book me a train from Paris to Milan on 12 May, coming back the 16th? Two adults, second class is fine, window seats if possible. — Marc Duval',
    schema: travel.schema as Record<string, unknown>,
    index: travel.index,
    indexTokenizer: travelIndex.tokenizer,
  },
];
