// Data-driven grammar cases: test/cases/<name>.<format>.case holds a grammar and strings
// the grammar must accept and reject.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GrammarFormat } from '../../src/index.ts';

export interface GrammarCase {
  readonly name: string;
  readonly format: GrammarFormat;
  readonly grammar: string;
  readonly accept: readonly string[];
  readonly reject: readonly string[];
}

const dir = join(import.meta.dirname, '..', 'cases');

export function loadCases(): GrammarCase[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.case'))
    .sort()
    .map((file) => {
      const [name, format] = file.split('.') as [string, GrammarFormat];
      const sections = new Map<string, string[]>();
      let current = '';
      for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
        const header = /^=== (grammar|accept|reject)$/.exec(line);
        if (header) sections.set((current = header[1]!), []);
        else sections.get(current)?.push(line);
      }
      const strings = (section: string): string[] => (sections.get(section) ?? []).filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as string);
      return { name: `${name}.${format}`, format, grammar: (sections.get('grammar') ?? []).join('\n'), accept: strings('accept'), reject: strings('reject') };
    });
}
