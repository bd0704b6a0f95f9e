/**
 * The contract rows (issue 31), in their own process: `node contract-bench.mjs <rounds> <ms>`
 * prints one JSON line with, per round, (1) POST requests per second of a 1 KB JSON echo to an
 * in-process server whose function declares a zod 4 schema of the body, against the same
 * function without one (alternated within a round, the client in this process loads both
 * sides alike), and (2) the wall time of `tsc --noEmit` on a generated 50-function project
 * with the client of `cloudfn client` and a caller making one call per function, against the
 * same project without the client. Needs npm run build.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { jsonBody } from './lib/bodies.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const [rounds = 3, ms = 1000] = process.argv.slice(2).map(Number);
const { Logger, createJsonSink, serve } = await import(`${ROOT}dist/runtime/index.js`);
const { clientSource } = await import(`${ROOT}dist/src/contract/client-source.js`);

const quiet = () => new Logger(createJsonSink(() => undefined));
const body = Buffer.from(jsonBody());
const echo = async (params) => params;
const schema = z.object({
  user: z.string(),
  page: z.number().int(),
  items: z.array(
    z.object({ id: z.number(), name: z.string(), tags: z.array(z.string()), price: z.number(), ok: z.boolean() }),
  ),
});
const options = { env: { PORT: '0', HOST: '127.0.0.1' }, logger: quiet(), handleSignals: false, keepServing: false };
const plain = await serve([{ name: 'echo', handler: echo }], options);
const declared = await serve([{ name: 'echo', handler: echo, config: { params: schema } }], options);

/** POST requests per second for `duration` ms over 8 keep-alive connections. */
async function postsPerSecond(url, duration) {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const post = () =>
    new Promise((resolve, reject) => {
      const req = request(url, {
        agent,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      });
      req.on('response', (res) => {
        if (res.statusCode !== 200) reject(new Error(`answered ${res.statusCode}`));
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(body);
    });
  const start = performance.now();
  let n = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (performance.now() < start + duration) {
        await post();
        n++;
      }
    }),
  );
  agent.destroy();
  return n / ((performance.now() - start) / 1000);
}

await postsPerSecond(`${plain.url}/echo`, Math.min(300, ms));
await postsPerSecond(`${declared.url}/echo`, Math.min(300, ms));
const result = { withSchema: [], without: [], clientCheckMs: [], functionsCheckMs: [] };
for (let r = 0; r < rounds; r++)
  for (const side of r % 2 === 0 ? ['with', 'without'] : ['without', 'with'])
    result[side === 'with' ? 'withSchema' : 'without'].push(
      await postsPerSecond(`${(side === 'with' ? declared : plain).url}/echo`, ms),
    );
await Promise.all([plain.close(), declared.close()]);

// (2) 50 functions in 5 folders, each declaring a zod 4 object of six fields and a result.
const project = join(ROOT, '.cloudfn', 'bench-client');
rmSync(project, { recursive: true, force: true });
const functions = [];
for (let i = 0; i < 50; i++) {
  const name = `area${i % 5}/fn${i}`;
  const file = `functions/${name}.ts`;
  functions.push({ name, file });
  mkdirSync(join(project, 'functions', `area${i % 5}`), { recursive: true });
  writeFileSync(
    join(project, file),
    `import { defineFunction } from 'cloudfn';
import { z } from 'zod';
export const config = {
  params: z.object({ id: z.string(), page: z.coerce.number().int().default(0), tags: z.array(z.string()).default([]), note: z.string().optional(), kind: z.enum(['a', 'b', 'c']), at: z.object({ x: z.number(), y: z.number() }) }),
  result: z.object({ id: z.string(), n${i}: z.number(), items: z.array(z.object({ vid: z.string(), size: z.number() })) }),
};
export default defineFunction(config, async (params) => ({ id: params.id, n${i}: params.page, items: [] }));
`,
  );
}
const out = join(project, 'client', 'api.ts');
mkdirSync(join(project, 'client'), { recursive: true });
writeFileSync(out, clientSource(functions, { root: project, out }));
const calls = functions.map((fn, i) => {
  const member = fn.name.split('/').join('.');
  return `  const r${i} = await api.${member}({ id: 'x', kind: 'a', at: { x: 1, y: 2 } }); total += r${i}.n${i};`;
});
writeFileSync(
  join(project, 'client', 'calls.ts'),
  `import { createClient, type ContainerCaller } from './api.js';
declare const cloud: ContainerCaller;
const api = createClient(cloud);
export async function all(): Promise<number> {
  let total = 0;
${calls.join('\n')}
  return total;
}
`,
);
const tsconfig = (files) => ({
  compilerOptions: {
    strict: true,
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    target: 'ES2022',
    noEmit: true,
    skipLibCheck: true,
    types: [],
    paths: {
      cloudfn: [join(ROOT, 'dist/src/index.d.ts')],
      'cloudfn/client': [join(ROOT, 'dist/src/client/index.d.ts')],
    },
  },
  files,
});
writeFileSync(join(project, 'package.json'), '{ "type": "module" }\n');
writeFileSync(join(project, 'client.json'), JSON.stringify(tsconfig(['client/calls.ts'])));
writeFileSync(join(project, 'functions.json'), JSON.stringify(tsconfig(functions.map((fn) => fn.file))));
const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
const check = (config) => {
  const start = performance.now();
  const run = spawnSync(process.execPath, [tsc, '-p', join(project, config)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`tsc ${config} failed: ${run.stdout}${run.stderr}`);
  return performance.now() - start;
};
for (let r = 0; r < rounds; r++)
  for (const side of r % 2 === 0 ? ['client', 'functions'] : ['functions', 'client'])
    result[side === 'client' ? 'clientCheckMs' : 'functionsCheckMs'].push(check(`${side}.json`));
rmSync(project, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(result)}\n`);
