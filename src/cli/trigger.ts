/**
 * `cloudfn trigger <function> [--url http://127.0.0.1:8000]`: fire a scheduled function now on
 * a running `cloudfn dev` (or `cloudfn start --trigger-endpoint`), as its timer would.
 */
import { triggerRemote } from '../schedule/trigger-client.js';
import { OptionsError, parseCommandArgs } from './args.js';
import { helpText } from './help.js';

const HELP = `usage: cloudfn trigger <function> [--url http://127.0.0.1:8000]

Fires a function that exports config.schedule now, on a running cloudfn dev (or cloudfn start
--trigger-endpoint): POST <url>/_cloudfn/trigger/<function>. The handler gets trigger 'timer'
and manual: true. Prints the function's status, logid and body; exits 1 when it answered 4xx/5xx.

  --url <url>   the server (default http://127.0.0.1:$PORT, PORT defaulting to 8000)`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    url: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(helpText(HELP, ['observability.md']) + '\n');
    return 0;
  }
  if (positionals.length !== 1)
    throw new OptionsError(`trigger takes one function name, got ${positionals.length}; e.g. cloudfn trigger cleanup`);
  const url = values.url ?? `http://127.0.0.1:${process.env['PORT'] || '8000'}`;
  let answer: Awaited<ReturnType<typeof triggerRemote>>;
  try {
    answer = await triggerRemote(url, positionals[0]!);
  } catch (error) {
    throw new OptionsError((error as Error).message);
  }
  process.stderr.write(`${answer.function} answered ${answer.status} (logid ${answer.logid})\n`);
  process.stdout.write(answer.body.endsWith('\n') || answer.body === '' ? answer.body : `${answer.body}\n`);
  return answer.status >= 400 ? 1 : 0;
}
