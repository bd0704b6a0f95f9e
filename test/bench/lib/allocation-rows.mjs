/**
 * The allocation rows: for each server kind, a fresh server process, a warm-up, then a fixed
 * number of requests between the two marks of its AllocationMeter (lib/allocation.mjs), read
 * over IPC. Kinds take turns within each round (A B, B A, ...) like the CPU rows. Per request:
 * bytes on the heap, bytes outside it, and per 10,000 requests the scavenges and the
 * mark-compacts.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { startServer } from './server.mjs';
import { median } from './stats.mjs';

/** Sends `amount` requests (one shape) at `connections` in flight and waits for every answer. */
async function send(url, amount, request) {
  if (amount === 0) return 0;
  const result = await autocannon({
    url,
    connections: Math.min(16, amount),
    amount,
    method: request?.method ?? 'GET',
    body: request?.bodyFile ? readFileSync(request.bodyFile) : undefined,
    headers: request?.contentType ? { 'content-type': request.contentType } : {},
    timeout: 10,
  });
  return result.non2xx + result.errors;
}

function ask(server, message) {
  return server.ask(message);
}

/**
 * @param {object} o
 * @param {string[]} o.kinds server kinds of servers/http-server.mjs (`cloudfn`, `fastify`, `raw`)
 * @param {string} o.path e.g. `/hello?name=a`
 * @param {{ method: string, bodyFile: string, contentType: string } | undefined} o.request
 * @param {number} o.requests requests measured per turn
 * @param {number} o.warmup requests before the first mark
 * @param {number} o.rounds
 * @param {string} o.logFile
 * @returns {Promise<Record<string, { heap: number[], external: number[], scavenges: number[], markCompacts: number[], problems: number }>>}
 *   per kind, the per-round values: bytes per request, and collections per 10,000 requests
 */
export async function measureAllocation({ kinds, path, request, requests, warmup, rounds, logFile }) {
  const out = Object.fromEntries(
    kinds.map((kind) => [kind, { heap: [], external: [], scavenges: [], markCompacts: [], problems: 0 }]),
  );
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? kinds : [...kinds].reverse();
    for (const kind of order) {
      const server = await startServer(kind, logFile, { allocation: true });
      try {
        const url = `${server.url}${path}`;
        out[kind].problems += await send(url, warmup, request);
        await ask(server, 'alloc-start');
        out[kind].problems += await send(url, requests, request);
        const counted = await ask(server, 'alloc-stop');
        out[kind].heap.push(counted.heapBytes / requests);
        out[kind].external.push(counted.externalBytes / requests);
        out[kind].scavenges.push((counted.scavenges * 10_000) / requests);
        out[kind].markCompacts.push((counted.markCompacts * 10_000) / requests);
      } finally {
        await server.stop();
      }
    }
  }
  return out;
}

/** The medians of one kind's rounds. */
export function allocationMedians(rows) {
  return {
    heap: median(rows.heap),
    external: median(rows.external),
    total: median(rows.heap.map((h, i) => h + rows.external[i])),
    scavenges: median(rows.scavenges),
    markCompacts: median(rows.markCompacts),
  };
}
