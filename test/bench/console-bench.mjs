/**
 * The console-capture rows, in their own process: `node console-bench.mjs <rounds> <ms>` prints
 * one JSON line with, per round, (1) console.log calls per second made inside a request with
 * capture on against service.log, both writing JSON lines to a sink that drops them, and (2)
 * GET requests per second to an in-process server with capture on against capture off, the
 * function making no console call (what capture costs every request: entering the
 * AsyncLocalStorage). Each pair is alternated within a round.
 */
import { Agent, request } from 'node:http';

const [rounds = 3, ms = 1000] = process.argv.slice(2).map(Number);
const { Logger, createJsonSink, serve } = await import('../../dist/runtime/index.js');

const quiet = () => new Logger(createJsonSink(() => undefined));

/** Calls `fn` for `duration` ms and returns calls per second. */
function opsPerSecond(fn, duration) {
  const start = performance.now();
  const until = start + duration;
  let n = 0;
  let now = start;
  while (now < until) {
    for (let i = 0; i < 8; i++) fn(i);
    n += 8;
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}

/** Requests per second for `duration` ms over 8 keep-alive connections. */
async function requestsPerSecond(url, duration) {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const get = () =>
    new Promise((resolve, reject) => {
      request(url, { agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
        .on('error', reject)
        .end();
    });
  const start = performance.now();
  const until = start + duration;
  let n = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (performance.now() < until) {
        await get();
        n++;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return n / seconds;
}

// (1) A handler that runs `calls` per-call loops inside its request, so console.log runs with
// the request's context as it would in a function; service.log is the baseline.
const perCall = {
  consoleLog: 0,
  serviceLog: 0,
};
const handler = async (params, service) => {
  const duration = Number(params.ms);
  if (params.kind === 'console') perCall.consoleLog = opsPerSecond((i) => console.log('tick', i), duration);
  else perCall.serviceLog = opsPerSecond((i) => service.log('tick', i), duration);
  return {};
};
const env = { PORT: '0', HOST: '127.0.0.1' };
const calls = await serve([{ name: 'calls', handler }], {
  env,
  logger: quiet(),
  handleSignals: false,
  keepServing: false,
});
const tiny = async () => ({ ok: true });
const on = await serve([{ name: 'tiny', handler: tiny }], {
  env,
  logger: quiet(),
  handleSignals: false,
  keepServing: false,
});
const off = await serve([{ name: 'tiny', handler: tiny }], {
  env: { ...env, CLOUDFN_CAPTURE_CONSOLE: 'false' },
  logger: quiet(),
  handleSignals: false,
  keepServing: false,
});
const measure = async (kind) => {
  await new Promise((resolve, reject) =>
    request(`${calls.url}/calls?kind=${kind}&ms=${ms}`, (res) => res.resume().on('end', resolve))
      .on('error', reject)
      .end(),
  );
  return kind === 'console' ? perCall.consoleLog : perCall.serviceLog;
};

await measure('console');
await measure('service');
await requestsPerSecond(`${on.url}/tiny`, Math.min(200, ms));
await requestsPerSecond(`${off.url}/tiny`, Math.min(200, ms));
const result = { consoleLog: [], serviceLog: [], captureOn: [], captureOff: [] };
for (let r = 0; r < rounds; r++) {
  // Alternate which side goes first so a drift of the machine does not favour one side.
  for (const kind of r % 2 === 0 ? ['console', 'service'] : ['service', 'console'])
    result[kind === 'console' ? 'consoleLog' : 'serviceLog'].push(await measure(kind));
  for (const side of r % 2 === 0 ? ['on', 'off'] : ['off', 'on'])
    result[side === 'on' ? 'captureOn' : 'captureOff'].push(
      await requestsPerSecond(`${(side === 'on' ? on : off).url}/tiny`, ms),
    );
}
await Promise.all([calls.close(), on.close(), off.close()]);
process.stdout.write(JSON.stringify(result) + '\n');
