#!/usr/bin/env node
// The sources are TypeScript; `strip-types.js` strips their types as they load.
import { register } from 'node:module';

register('./strip-types.js', import.meta.url);
process.setSourceMapsEnabled(true); // stack traces point into the TypeScript sources
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
