/**
 * `cloudfn trigger <function> [--url http://127.0.0.1:8000]`: fire a scheduled function now on
 * a running `cloudfn dev` (or `cloudfn start --trigger-endpoint`), as its timer would.
 */
import { CLOUDFN_PREFIX } from '../../runtime/options.js';
import { triggerRemote } from '../schedule/trigger-client.js';
import { OptionsError, parseOrHelp } from './args.js';
import type { CommandHelp } from './help.js';
import { printJson } from './json.js';

export const HELP: CommandHelp = {
  name: 'trigger',
  usage: ['trigger <function> [--url http://127.0.0.1:8000] [--json]'],
  description: `Fires a function that exports config.schedule now, on a running cloudfn dev (or cloudfn start
--trigger-endpoint): POST <url>${CLOUDFN_PREFIX}/trigger/<function>. The handler gets trigger 'timer',
the schedule's params as its body and x-cloudfn-manual: true. Prints the function's status and
logid on stderr and its body on stdout; exits 1 when it answered 4xx/5xx or was cut at 60 s.`,
  options: [
    ['--url <url>', 'the server (default http://127.0.0.1:$PORT, PORT defaulting to 8000)'],
    ['--json', 'print one JSON object on stdout: { function, status, logid, body, cut }'],
  ],
  examples: [
    ['trigger cleanup', 'fire functions/cleanup.ts on the dev server'],
    ['trigger reports/daily --url http://127.0.0.1:3000 --json', 'on another port, as JSON for a script'],
  ],
  json: `{ "function": string, "status": number, "logid": string, "body": string, "cut": boolean }  // body: as the function answered; cut: not answered within the limit`,
  pages: ['observability.md', 'cli.md'],
};

export async function run(argv: string[]): Promise<number> {
  const args = parseOrHelp(
    argv,
    {
      url: { type: 'string' },
      json: { type: 'boolean' },
    },
    HELP,
  );
  if (args === undefined) return 0;
  const { values, positionals } = args;
  if (positionals.length !== 1)
    throw new OptionsError(`trigger takes one function name, got ${positionals.length}; e.g. cloudfn trigger cleanup`);
  const url = values.url ?? `http://127.0.0.1:${process.env['PORT'] || '8000'}`;
  let answer: Awaited<ReturnType<typeof triggerRemote>>;
  try {
    answer = await triggerRemote(url, positionals[0]!);
  } catch (error) {
    throw new OptionsError((error as Error).message);
  }
  const cut = answer.cut === true;
  const code = answer.status >= 400 || cut ? 1 : 0;
  if (values.json === true) {
    const { function: fn, status, logid, body } = answer;
    return printJson({ function: fn, status, logid, body, cut }, code);
  }
  process.stderr.write(
    cut
      ? `${answer.function} was cut: no answer within the firing limit (logid ${answer.logid})\n`
      : `${answer.function} answered ${answer.status} (logid ${answer.logid})\n`,
  );
  process.stdout.write(answer.body.endsWith('\n') || answer.body === '' ? answer.body : `${answer.body}\n`);
  return code;
}
