// A stand-in for the Hugging Face hub on 127.0.0.1: serves the fixture models (`sieve fixtures
// build`, written here first) under their hub ids, as the hub does
// (`/{id}/resolve/main/{file}`), so that pages load them the way a user's browser loads real
// models. Tests steer it through /_control/: `fail?file=F` cuts the next download of F
// halfway, `hold?file=F` sends half of the next download of F and holds the rest until
// `release` (or `reset`), `offline?on=1` refuses every file, `log` lists the files served
// whole and counts the downloads held, `reset` clears all.
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, normalize } from 'node:path';
import { buildFixtures } from '../packages/cli/src/fixture-models.ts';
import { LOCAL_HUB, LOCAL_HUB_PORT } from './local-hub-address.ts';

const root = join(import.meta.dirname, '..', '.fixtures', 'models');
buildFixtures(root);

const failing = new Set<string>();
const holding = new Set<string>();
// Downloads held halfway: each sends the rest of its file (if the browser still waits).
const held: (() => void)[] = [];
let offline = false;
const served: string[] = [];

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Access-Control-Expose-Headers': 'Content-Length, Content-Range',
};

createServer((request, response) => {
  const url = new URL(request.url ?? '/', LOCAL_HUB);
  if (url.pathname.startsWith('/_control/')) {
    const command = url.pathname.slice('/_control/'.length);
    if (command === 'fail') failing.add(url.searchParams.get('file') ?? '');
    else if (command === 'hold') holding.add(url.searchParams.get('file') ?? '');
    else if (command === 'release') for (const finish of held.splice(0)) finish();
    else if (command === 'offline') offline = url.searchParams.get('on') === '1';
    else if (command === 'reset') {
      failing.clear();
      holding.clear();
      for (const finish of held.splice(0)) finish();
      offline = false;
      served.length = 0;
    } else if (command !== 'log') return void response.writeHead(404).end();
    return void response
      .writeHead(200, { 'Content-Type': 'application/json', ...CORS })
      .end(JSON.stringify({ served, offline, failing: [...failing], holding: [...holding], held: held.length }));
  }
  const match = /^\/(.+?)\/resolve\/main\/(.+)$/.exec(decodeURIComponent(url.pathname));
  const path = match === null ? null : normalize(join(root, match[1]!, match[2]!));
  if (request.method === 'OPTIONS') return void response.writeHead(204, { ...CORS, 'Access-Control-Allow-Headers': '*' }).end();
  if (offline) return void response.destroy();
  if (path === null || !path.startsWith(root) || !existsSync(path) || !statSync(path).isFile())
    return void response.writeHead(404, CORS).end('Entry not found');
  const file = path.slice(root.length + 1);
  const size = statSync(path).size;
  // transformers.js asks for a file's size with `Range: bytes=0-0` before downloading it:
  // answered as the hub does (206, Content-Range), and neither logged nor cut nor held.
  const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '');
  if (range !== null && request.method === 'GET') {
    const start = Number(range[1]);
    const end = Math.min(Number(range[2]), size - 1);
    response.writeHead(206, {
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(end - start + 1),
      'Content-Range': `bytes ${start}-${end}/${size}`,
      ...CORS,
    });
    return void createReadStream(path, { start, end }).pipe(response);
  }
  response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(size), ...CORS });
  if (request.method === 'HEAD') return void response.end();
  const half = (): Buffer => readFileSync(path).subarray(0, Math.floor(size / 2));
  if (failing.delete(file)) {
    // Half the bytes, sent, then the connection drops (once they are out: a connection that
    // drops before any byte arrives is retried by the browser itself).
    response.write(half(), () => setTimeout(() => response.destroy(), 200));
    return;
  }
  if (holding.delete(file)) {
    response.write(half());
    held.push(() => {
      if (response.destroyed) return;
      served.push(file);
      response.end(readFileSync(path).subarray(Math.floor(size / 2)));
    });
    return;
  }
  served.push(file);
  createReadStream(path).pipe(response);
}).listen(LOCAL_HUB_PORT, '127.0.0.1');
