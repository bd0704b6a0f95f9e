/**
 * The HTTP rows. Each round starts a fresh server of every kind (so peak RSS is the round's
 * own), warms each up, then loads them in turns of one second, in an order that rotates,
 * until each has had `seconds` seconds of load with the same connections. Short turns matter
 * on a shared machine: a burst of other work lands on both sides of a ratio instead of one.
 */
import { runAutocannon } from './autocannon.mjs';
import { runWrk } from './wrk.mjs';
import { startServer } from './server.mjs';
import { median } from './stats.mjs';

/**
 * Runs `rounds` rounds over `kinds`, each loaded by the same request.
 * Resolves with, per kind, one `{ rps, requests, maxRss, cpuMicrosPerRequest, userMicrosPerRequest, p99Ms, non2xx, socketErrors }`
 * per round.
 * @param {object} o
 * @param {string[]} o.kinds e.g. ['raw', 'cloudfn']
 * @param {string} o.path e.g. '/hello?name=world'
 * @param {object} [o.request] method, bodyFile, contentType for the load generator
 * @param {number} o.connections
 * @param {number} o.rounds
 * @param {number} o.seconds measured seconds per kind and round
 * @param {number} o.warmup seconds of load before measuring
 * @param {string} o.logFile where the servers' stdout (cloudfn's log lines) goes
 * @param {'wrk' | 'autocannon'} [o.load] the load generator @default 'wrk'
 * @param {(line: string) => void} [o.progress]
 */
export async function measureKinds({
  kinds,
  path,
  request,
  connections,
  rounds,
  seconds,
  warmup,
  logFile,
  load = 'wrk',
  progress = () => {},
}) {
  const runLoad = load === 'autocannon' ? runAutocannon : runWrk;
  // wrk counts whole seconds; autocannon takes the fraction as one turn.
  const turn = load === 'wrk' ? 1 : seconds;
  const turns = Math.max(1, Math.round(seconds / turn));
  const results = Object.fromEntries(kinds.map((kind) => [kind, []]));
  for (let round = 0; round < rounds; round++) {
    const servers = {};
    try {
      for (const kind of kinds) servers[kind] = await startServer(kind, logFile);
      const totals = Object.fromEntries(
        kinds.map((kind) => [
          kind,
          { requests: 0, seconds: 0, cpuMicros: 0, userMicros: 0, p99s: [], non2xx: 0, socketErrors: 0 },
        ]),
      );
      if (warmup > 0)
        for (const kind of kinds)
          await runLoad({ url: servers[kind].url + path, connections, seconds: warmup, request });
      for (let t = 0; t < turns; t++) {
        const shift = round + t;
        for (const kind of kinds.map((_, i) => kinds[(i + shift) % kinds.length])) {
          const server = servers[kind];
          const before = await server.stats();
          const run = await runLoad({ url: server.url + path, connections, seconds: turn, request });
          const after = await server.stats();
          const total = totals[kind];
          total.requests += run.requests;
          total.seconds += run.requests / run.rps;
          total.cpuMicros += after.cpuMicros - before.cpuMicros;
          total.userMicros += after.userMicros - before.userMicros;
          total.p99s.push(run.p99Ms);
          total.non2xx += run.non2xx;
          total.socketErrors += run.socketErrors;
        }
      }
      for (const kind of kinds) {
        const total = totals[kind];
        const stats = await servers[kind].stats();
        const result = {
          rps: total.requests / total.seconds,
          requests: total.requests,
          maxRss: stats.maxRss,
          // CPU time per request moves far less than req/s when other processes share the machine.
          cpuMicrosPerRequest: total.cpuMicros / total.requests,
          // Its user-space part: the code's own work, without the kernel's socket time.
          userMicrosPerRequest: total.userMicros / total.requests,
          // The p99 latency of a round is the median of its turns' p99s. Each turn's p99 comes
          // from its own wrk run (percentiles of separate runs cannot be merged without their
          // histograms); the median keeps one turn hit by a burst of other work from setting
          // the round's value, as a mean or a max would let it. The latency row then takes,
          // like every row, the median over rounds of the per-round ratios.
          p99Ms: median(total.p99s),
          non2xx: total.non2xx,
          socketErrors: total.socketErrors,
        };
        results[kind].push(result);
        progress(
          `  round ${round + 1} ${kind.padEnd(11)} ${Math.round(result.rps)} req/s, ${result.cpuMicrosPerRequest.toFixed(1)} µs CPU/req, p99 ${result.p99Ms.toFixed(2)} ms, peak RSS ${(result.maxRss / 2 ** 20).toFixed(1)} MB` +
            (result.non2xx || result.socketErrors
              ? `, ${result.non2xx} non-2xx, ${result.socketErrors} socket errors`
              : ''),
        );
      }
    } finally {
      for (const server of Object.values(servers)) await server.stop();
    }
  }
  return results;
}
