/**
 * `cloudfn start [root] --port <n> --host <h> [--workers <n|auto>]`: parses the flags and calls
 * `startServer` (src/start/), which serves the project in production mode, in one process or in
 * n with node:cluster.
 */
import { CLOUDFN_PREFIX } from '../../runtime/options.js';
import { resolve } from 'node:path';
import { CloudfnError } from '../../runtime/errors.js';
import { parseWorkers } from '../../runtime/serve/cluster.js';
import { startServer } from '../start/start-server.js';
import { OptionsError, parseCommandArgs } from './args.js';
import { type CommandHelp, formatHelp } from './help.js';

export const HELP: CommandHelp = {
  name: 'start',
  usage: [
    'start [root] [--port 8000] [--host 0.0.0.0] [--workers <n|auto>] [--metrics] [--trigger-endpoint]',
    '      [--memory-budget <bytes>] [--send-timeout <ms>] [--max-connections <n>] [--memory-wait-timeout <ms>]',
    '      [--overload-threshold <percent>] [--functions-dir functions]',
  ],
  description: `Serves every function of <root>/functions (default: the current folder) in production mode,
with JSON log lines on stdout. PORT and HOST are read when the flags are absent, then
cloudfn.config.* (see docs/configuration.md). Functions exporting config.schedule (cron) are fired
on it, with service.trigger 'timer'; with CLOUDFN_REDIS_URL set, one server of the fleet fires
each. GET ${CLOUDFN_PREFIX}/health answers 200 while serving and 503 while draining. With
"gateway": true in cloudfn.config.json (or CLOUDFN_GATEWAY=1) WebSocket clients connect at
/__dycloud__/ws/connect/ and the functions' pushes reach them, across the workers too.`,
  options: [
    ['-p, --port <n>', 'port to listen on (PORT, default 8000)'],
    ['--host <h>', 'address to listen on (HOST, default 0.0.0.0)'],
    ['-w, --workers <n|auto>', 'serve from n processes sharing the port (node:cluster); auto is one per CPU'],
    ['--metrics', `serve Prometheus text at ${CLOUDFN_PREFIX}/metrics (CLOUDFN_METRICS=true), summed over the workers`],
    [
      '--trigger-endpoint',
      `accept POST ${CLOUDFN_PREFIX}/trigger/<function> (cloudfn trigger) to fire a scheduled function now`,
    ],
    [
      '--memory-budget <bytes>',
      'bodies and unsent answers held at once, per process (CLOUDFN_MEMORY_BUDGET; 0 is off)',
    ],
    [
      '--send-timeout <ms>',
      'close a connection whose client reads none of its answer (CLOUDFN_SEND_TIMEOUT; 0 is off)',
    ],
    ['--max-connections <n>', 'open connections per process (CLOUDFN_MAX_CONNECTIONS; 0 is off)'],
    [
      '--memory-wait-timeout <ms>',
      'a body over the memory budget waits unread this long before a 503 (CLOUDFN_MEMORY_WAIT_TIMEOUT)',
    ],
    [
      '--overload-threshold <percent>',
      'of connections or memory, past which timeouts are shortened (CLOUDFN_OVERLOAD_THRESHOLD; 0 is off)',
    ],
    ['--functions-dir <dir>', 'the folder of the functions (config functionsDir; . is the root)'],
  ],
  examples: [
    ['start', 'serve the project in this folder on port 8000'],
    ['start --port 3000 --workers auto', 'one process per CPU on port 3000'],
    ['start ./my-app --metrics', 'serve another folder, with Prometheus metrics'],
  ],
  pages: ['configuration.md', 'deploy.md', 'gateway.md', 'observability.md'],
};

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    workers: { type: 'string', short: 'w' },
    metrics: { type: 'boolean' },
    'trigger-endpoint': { type: 'boolean' },
    'memory-budget': { type: 'string' },
    'send-timeout': { type: 'string' },
    'max-connections': { type: 'string' },
    'memory-wait-timeout': { type: 'string' },
    'overload-threshold': { type: 'string' },
    'functions-dir': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(formatHelp(HELP) + '\n');
    return 0;
  }
  if (positionals.length > 1)
    throw new OptionsError(`start takes one project folder, got ${positionals.length}: ${positionals.join(' ')}`);
  const root = resolve(positionals[0] ?? '.');
  const flags = {
    port: values.port,
    host: values.host,
    metrics: values.metrics === true ? true : undefined,
    memoryBudget: values['memory-budget'],
    sendTimeout: values['send-timeout'],
    maxConnections: values['max-connections'],
    memoryWaitTimeout: values['memory-wait-timeout'],
    overloadThreshold: values['overload-threshold'],
    functionsDir: values['functions-dir'],
  };
  let workers: number | undefined;
  try {
    workers = values.workers === undefined ? undefined : parseWorkers(values.workers);
  } catch (error) {
    throw new OptionsError((error as Error).message);
  }
  try {
    const started = await startServer({ root, flags, workers, triggerEndpoint: values['trigger-endpoint'] === true });
    // A single server keeps the process alive; signals end it with exit code 0.
    return started.mode === 'primary' ? started.exitCode : 0;
  } catch (error) {
    // Start-up problems are the user's to fix: one line (plus a code frame for compile errors).
    if (error instanceof CloudfnError) throw new OptionsError(error.message);
    throw error;
  }
}
