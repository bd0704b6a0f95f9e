/**
 * The HTTP rows: servers of each kind started fresh for every round (so peak RSS is the
 * round's own), warmed up, then loaded by wrk with the same connections and duration; the
 * kinds take turns in an order that rotates each round.
 */
import { runAutocannon } from './autocannon.mjs';
import { runWrk } from './wrk.mjs';
import { startServer } from './server.mjs';

/**
 * Runs `rounds` rounds over `kinds`, each loaded by the same wrk request.
 * Resolves with, per kind, the list of `{ rps, maxRss, ... }` of each round.
 * @param {object} o
 * @param {string[]} o.kinds e.g. ['raw', 'cloudfn']
 * @param {string} o.path e.g. '/hello?name=world'
 * @param {object} [o.request] method, bodyFile, contentType for wrk
 * @param {number} o.connections
 * @param {number} o.rounds
 * @param {number} o.seconds measured seconds per side and round
 * @param {number} o.warmup seconds of load before measuring
 * @param {string} o.logFile where cloudfn's log lines go
 * @param {'wrk' | 'autocannon'} [o.load] the load generator @default 'wrk'
 * @param {(line: string) => void} [o.progress]
 */
export async function measureKinds({ kinds, path, request, connections, rounds, seconds, warmup, logFile, load = 'wrk', progress = () => {} }) {
  const runLoad = load === 'autocannon' ? runAutocannon : runWrk;
  const results = Object.fromEntries(kinds.map((kind) => [kind, []]));
  for (let round = 0; round < rounds; round++) {
    const order = kinds.map((_, i) => kinds[(i + round) % kinds.length]);
    for (const kind of order) {
      const server = await startServer(kind, logFile);
      try {
        const url = server.url + path;
        if (warmup > 0) await runLoad({ url, connections, seconds: warmup, request });
        const before = await server.stats();
        const run = await runLoad({ url, connections, seconds, request });
        const stats = await server.stats();
        // CPU time per request moves far less than req/s when other processes share the machine.
        const cpuMicrosPerRequest = (stats.cpuMicros - before.cpuMicros) / run.requests;
        results[kind].push({ ...run, maxRss: stats.maxRss, cpuMicrosPerRequest });
        progress(`  round ${round + 1} ${kind.padEnd(8)} ${Math.round(run.rps)} req/s, ${cpuMicrosPerRequest.toFixed(1)} µs CPU/req, peak RSS ${(stats.maxRss / 2 ** 20).toFixed(1)} MB` + (run.non2xx || run.socketErrors ? `, ${run.non2xx} non-2xx, ${run.socketErrors} socket errors` : ''));
      } finally {
        await server.stop();
      }
    }
  }
  return results;
}
