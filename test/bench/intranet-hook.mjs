#!/usr/bin/env node
/**
 * An A/B benchmark of the intranet hook (issue 40, runtime/intranet/intercept.ts): what an
 * outgoing call to an ordinary host pays while the hook is on, as `cloudfn dev` has it. Each
 * turn makes `ops` sequential calls to a local server by `fetch` and by `http.get` (a keep-alive
 * agent) with the hook off and on, which goes first alternating by turn; figures are CPU time per call of this
 * process (process.cpuUsage, the server included), medians over turns, and the ratio on/off. A
 * function that makes no outgoing call pays nothing at all: the hook is not on the request path.
 * Needs npm run build.
 *
 *   node test/bench/intranet-hook.mjs [--turns 6] [--ops 2000]
 */
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './lib/stats.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { values } = parseArgs({
  options: { turns: { type: 'string', default: '6' }, ops: { type: 'string', default: '2000' } },
});
const turns = Number(values.turns);
const ops = Number(values.ops);
const { interceptIntranet } = await import(`${ROOT}dist/runtime/intranet/intercept.js`);

const server = http.createServer((_req, res) => res.end('ok'));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;
const agent = new http.Agent({ keepAlive: true });
// A router that never takes a request: every call is an ordinary one.
const router = () => undefined;

const viaFetch = async () => {
  for (let i = 0; i < ops; i++) await (await fetch(url)).text();
};
const viaGet = async () => {
  for (let i = 0; i < ops; i++)
    await new Promise((resolve, reject) =>
      http.get(url, { agent }, (res) => res.resume().on('end', resolve)).on('error', reject),
    );
};

async function cpuPerCall(run) {
  const start = process.cpuUsage();
  await run();
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / ops; // ns per call
}

const rows = {};
for (const [name, run] of [
  ['fetch', viaFetch],
  ['http.get', viaGet],
]) {
  await run(); // warm up
  const off = [];
  const on = [];
  for (let turn = 0; turn < turns; turn++) {
    // Which goes first alternates, so neither gains from the other's warming.
    if (turn % 2 === 0) off.push(await cpuPerCall(run));
    const remove = await interceptIntranet(router);
    on.push(await cpuPerCall(run));
    remove();
    if (turn % 2 === 1) off.push(await cpuPerCall(run));
  }
  rows[name] = { offNs: Math.round(median(off)), onNs: Math.round(median(on)), ratio: median(on) / median(off) };
}
server.close();
agent.destroy();
console.log(`node ${process.version}, ${turns} turns of ${ops} calls, CPU per call (median)`);
for (const [name, row] of Object.entries(rows))
  console.log(`${name.padEnd(9)} hook off ${row.offNs} ns, on ${row.onNs} ns: ${row.ratio.toFixed(3)}x`);
