/**
 * The script `--check` and the tests run under Node 14: it loads one built file as the
 * function service does (`require`), calls its handler once per request through the
 * imitation, and prints the answers as one JSON line (`{ "harness": 1, ... }`; the function's
 * own output may come before it). Arguments: the file, then a JSON array of requests. A file
 * that fails to load prints `{ "loadError": ... }`.
 *
 * Calls to the platform's inner-call hosts go to the check's router (`CLOUDFN_CHECK_INTRANET`,
 * `host:port`), with their Host header unchanged. Once it has answered, a process that does not
 * end within `CLOUDFN_CHECK_EXIT_MS` prints what holds it open (`{ "harness": 1, "openHandles": [...] }`)
 * and exits.
 */
import { Agent } from 'node:http';
import { createConnection } from 'node:net';
import { INNER_CALL_SUFFIXES } from '../../../runtime/intranet/hosts.js';
import { invokeImitation, type ImitatedRequest } from './imitation.js';
import { watchOpenHandles } from './open-handles.js';

const print = (value: Record<string, unknown>): void => {
  process.stdout.write(`\n${JSON.stringify({ harness: 1, ...value })}\n`);
};

/** Sends connections for the inner-call hosts to the check's router. */
function routeInnerCalls(router: string): void {
  const at = router.lastIndexOf(':');
  const host = router.slice(0, at);
  const port = Number(router.slice(at + 1));
  const slots = Agent.prototype as unknown as {
    createConnection: (options: Record<string, unknown>, callback?: unknown) => unknown;
  };
  const create = slots.createConnection;
  slots.createConnection = function (options, callback) {
    const name = String(options['host'] ?? options['hostname'] ?? '').toLowerCase();
    if (!INNER_CALL_SUFFIXES.some((suffix) => name.endsWith(suffix))) return create.call(this, options, callback);
    return createConnection({ host, port });
  };
}

async function main(): Promise<void> {
  const [file, requestsJson] = process.argv.slice(2);
  const openHandles = watchOpenHandles();
  if (process.env.CLOUDFN_CHECK_INTRANET) routeInnerCalls(process.env.CLOUDFN_CHECK_INTRANET);
  let handler: unknown;
  try {
    handler = require(file!) as unknown;
  } catch (error) {
    print({ loadError: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    return;
  }
  if (typeof handler !== 'function') {
    print({ loadError: `module.exports is ${typeof handler}, not the handler` });
    return;
  }
  const answers = [];
  for (const request of JSON.parse(requestsJson ?? '[]') as ImitatedRequest[])
    answers.push(await invokeImitation(handler as (params: unknown, context: unknown) => unknown, request));
  print({ node: process.version, answers });
  // Unref'd: it fires only when something else still holds the process open.
  const bound = Number(process.env.CLOUDFN_CHECK_EXIT_MS ?? 2000);
  setTimeout(() => {
    print({ openHandles: openHandles() });
    process.exit(0);
  }, bound).unref();
}

void main();
