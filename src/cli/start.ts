/**
 * `cloudfn start [root] --port <n> --host <h> [--workers <n|auto>]`: serve a project in
 * production mode, in one process or in n with node:cluster.
 */
import cluster from 'node:cluster';
import { resolve } from 'node:path';
import { resolveOptions } from '../../runtime/options.js';
import { checkFunctionNames } from '../../runtime/serve/config-file.js';
import { loadProjectConfig } from '../build/project-config.js';
import { discoverFunctions } from '../../runtime/serve/discover.js';
import { startProject } from '../../runtime/serve/start.js';
import { CloudfnError } from '../../runtime/errors.js';
import { createCompileHook } from '../build/compile.js';
import { clusterLogger, parseWorkers, runPrimary, runWorker } from '../../runtime/serve/cluster.js';
import { precompileProject, precompiledHook } from '../build/precompile.js';
import { installSdkResolver } from '../platform/sdk/node-resolver.js';
import { checkRedisClient } from '../fleet/preflight.js';
import { grantLocksToWorkers } from '../schedule/lock.js';
import { serveTimers } from '../schedule/serve-timers.js';
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
each. GET /_cloudfn/health answers 200 while serving and 503 while draining.`,
  options: [
    ['-p, --port <n>', 'port to listen on (PORT, default 8000)'],
    ['--host <h>', 'address to listen on (HOST, default 0.0.0.0)'],
    ['-w, --workers <n|auto>', 'serve from n processes sharing the port (node:cluster); auto is one per CPU'],
    ['--metrics', 'serve Prometheus text at /_cloudfn/metrics (CLOUDFN_METRICS=true), summed over the workers'],
    [
      '--trigger-endpoint',
      'accept POST /_cloudfn/trigger/<function> (cloudfn trigger) to fire a scheduled function now',
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
  pages: ['configuration.md', 'deploy.md', 'observability.md'],
};

/** Start-up problems are the user's to fix: one line (plus a code frame for compile errors). */
function oneLine(error: unknown): never {
  if (error instanceof CloudfnError) throw new OptionsError(error.message);
  throw error;
}

/**
 * Whether npm (`npm start`, `npx cloudfn start`, `npm exec`) started this process: npm sets
 * `npm_command` in its children's environment. Killed by its PID, npm passes no signal on, so
 * then the server stops when its parent goes, as `cloudfn dev` does. Otherwise it does not: a
 * production server may be left running on purpose (`nohup cloudfn start &`, then the shell
 * exits), and under a supervisor its parent does not go.
 * @example startedByNpm({ npm_command: 'exec' }) // true
 */
function startedByNpm(env: NodeJS.ProcessEnv): boolean {
  return env['npm_command'] !== undefined && env['npm_command'] !== '';
}

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
  const timers = (): ReturnType<typeof serveTimers> => serveTimers({ endpoint: values['trigger-endpoint'] === true });
  let workers: number | undefined;
  try {
    workers = values.workers === undefined ? undefined : parseWorkers(values.workers);
  } catch (error) {
    throw new OptionsError((error as Error).message);
  }

  // A Redis setting whose client cannot load refuses to start: serving would answer signed
  // requests 500 and let the media client stop sharing.
  const noClient = await checkRedisClient(process.env);
  if (noClient !== undefined) throw new OptionsError(`${noClient.code}: ${noClient.message}`);

  // The compile hook writes inline source maps: with them on, a crash's stack names the .ts line
  // (functions/boom.ts:3:9) rather than the compiled .cloudfn/start/boom.mjs. Stacks are only
  // mapped when an error's stack is read, so requests that do not fail pay nothing.
  process.setSourceMapsEnabled(true);
  // JavaScript functions importing the platform's server SDK get the stand-in when it is not
  // installed (TypeScript ones get it from the compile hook).
  await installSdkResolver(root, { javascript: hasJavaScriptFunctions(root) });
  if (workers !== undefined && cluster.isWorker) {
    await runWorker(
      async () => {
        const { prepare, before } = timers();
        return startProject(root, {
          flags,
          compile: precompiledHook(root),
          handleSignals: false,
          logger: clusterLogger(),
          prepare,
          before,
        });
      },
      (error) => (error instanceof Error ? error.message : String(error)),
    );
    return 0;
  }
  if (workers !== undefined) {
    let metrics: boolean;
    try {
      // Checked once here, so a bad option is one line rather than one per worker.
      const config = await loadProjectConfig(root);
      const resolved = resolveOptions({ flags, env: process.env, config });
      metrics = resolved.metrics;
      checkFunctionNames(
        config,
        discoverFunctions(root, resolved.functionsDir).map((fn) => fn.name),
      );
      await precompileProject(root, resolved.functionsDir);
    } catch (error) {
      oneLine(error);
    }
    // The workers' timers ask the primary which of them fires each (without Redis).
    const stopLocks = grantLocksToWorkers();
    const code = await runPrimary({ workers, metrics, exitWithParent: startedByNpm(process.env) });
    stopLocks();
    return code;
  }

  try {
    const { prepare, before } = timers();
    await startProject(root, {
      flags,
      compile: createCompileHook(root),
      prepare,
      before,
      exitWithParent: startedByNpm(process.env),
    });
  } catch (error) {
    oneLine(error);
  }
  // The server keeps the process alive; signals end it with exit code 0.
  return 0;
}

/** Whether Node, rather than esbuild, loads some function of `root`. */
function hasJavaScriptFunctions(root: string): boolean {
  try {
    return discoverFunctions(root).some((fn) => /\.[cm]?js$/.test(fn.file));
  } catch {
    // A project that cannot be listed fails in startProject with its own message.
    return false;
  }
}
