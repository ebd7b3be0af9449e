import { jsonSchemaGrammar, SchemaError } from './packages/grammar/src/index.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { suiteFiles } from './packages/cli/src/conformance.ts';
const counts = new Map<string, number>();
for (const f of suiteFiles('../shared/corpora/json-schema-test-suite')) {
  for (const g of JSON.parse(readFileSync(f, 'utf8'))) {
    try { jsonSchemaGrammar(g.schema); } catch (e) { const k = e instanceof SchemaError ? `${e.code}:${e.keyword}` : String(e); counts.set(k, (counts.get(k) ?? 0) + g.tests.length); if (process.argv[2] && k.includes(process.argv[2])) console.log(f.split('/').pop(), g.description, (e as Error).message); }
  }
}
console.log([...counts].sort((a, b) => b[1] - a[1]));
