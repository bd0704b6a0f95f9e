#!/usr/bin/env node
/**
 * An A/B micro-benchmark of removing the platform-set headers (issue 30): the six lookups of the
 * old identity list against the one pass of runtime/request/gateway-headers.ts over the twenty
 * names of its list, on node's own header objects of a typical request (six headers, none of
 * the platform's: the cost every request pays under cloudfn start). The two run in alternated
 * turns in this process, measured by CPU time (process.cpuUsage); figures are medians over
 * turns, in ns per request. Needs npm run build.
 *
 *   node test/bench/gateway-strip.mjs [--turns 6] [--ops 300000]
 */
import { IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './lib/stats.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { values } = parseArgs({
  options: { turns: { type: 'string', default: '6' }, ops: { type: 'string', default: '300000' } },
});
const turns = Number(values.turns);
const ops = Number(values.ops);
const { stripGatewayHeaders } = await import(`${ROOT}dist/runtime/request/gateway-headers.js`);

const IDENTITY = ['x-tt-openid', 'x-tt-appid', 'x-tt-unionid', 'x-tt-anonymous-openid', 'x-tt-env', 'x-tt-source'];
function sixLookups(headers) {
  let found = false;
  for (const name of IDENTITY) {
    if (headers[name] !== undefined) {
      delete headers[name];
      found = true;
    }
  }
  return found;
}

const RAW = ['Host', '127.0.0.1:8000', 'User-Agent', 'wrk', 'Accept', '*/*', 'Connection', 'keep-alive'];
RAW.push('Content-Type', 'application/json', 'Content-Length', '12');
function headersObject() {
  const message = new IncomingMessage(null);
  message._addHeaderLines(RAW, RAW.length);
  return message.headers;
}

const variants = { 'six lookups (before)': sixLookups, 'one pass (gateway-headers.ts)': stripGatewayHeaders };
const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (let turn = 0; turn < turns; turn++) {
  for (const [name, strip] of Object.entries(variants)) {
    const objects = Array.from({ length: ops }, headersObject);
    const started = process.cpuUsage();
    for (const headers of objects) strip(headers);
    const used = process.cpuUsage(started);
    times[name].push(((used.user + used.system) * 1000) / ops);
  }
}
for (const [name, list] of Object.entries(times)) console.log(`${name.padEnd(30)} ${median(list).toFixed(1)} ns`);
