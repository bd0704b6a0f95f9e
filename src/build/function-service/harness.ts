/**
 * The script `--check` and the tests run under Node 14: it loads one built file as the
 * function service does (`require`), calls its handler once per request through the
 * imitation, and prints the answers as one JSON line. Arguments: the file, then a JSON array
 * of requests. A file that fails to load prints `{ "loadError": ... }`.
 */
import { invokeImitation, type ImitatedRequest } from './imitation.js';

async function main(): Promise<void> {
  const [file, requestsJson] = process.argv.slice(2);
  let handler: unknown;
  try {
    handler = require(file!) as unknown;
  } catch (error) {
    process.stdout.write(
      `${JSON.stringify({ loadError: error instanceof Error ? (error.stack ?? error.message) : String(error) })}\n`,
    );
    return;
  }
  if (typeof handler !== 'function') {
    process.stdout.write(`${JSON.stringify({ loadError: `module.exports is ${typeof handler}, not the handler` })}\n`);
    return;
  }
  const answers = [];
  for (const request of JSON.parse(requestsJson ?? '[]') as ImitatedRequest[])
    answers.push(await invokeImitation(handler as (params: unknown, context: unknown) => unknown, request));
  process.stdout.write(`${JSON.stringify({ node: process.version, answers })}\n`);
}

void main();
