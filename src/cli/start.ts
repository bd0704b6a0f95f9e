/**
 * `cloudfn start [root] --port <n> --host <h> [--workers <n|auto>]`: serve a project in
 * production mode, in one process or in n with node:cluster.
 */
import cluster from 'node:cluster';
import { resolve } from 'node:path';
import { resolveOptions } from '../../runtime/options.js';
import { checkFunctionNames, loadConfigFile } from '../../runtime/serve/config-file.js';
import { discoverFunctions } from '../../runtime/serve/discover.js';
import { startProject } from '../../runtime/serve/start.js';
import { CloudfnError } from '../../runtime/errors.js';
import { createCompileHook } from '../build/compile.js';
import { clusterLogger, parseWorkers, runPrimary, runWorker } from '../../runtime/serve/cluster.js';
import { precompileProject, precompiledHook } from '../build/precompile.js';
import { checkRedisClient } from '../fleet/preflight.js';
import { grantLocksToWorkers } from '../schedule/lock.js';
import { serveTimers } from '../schedule/serve-timers.js';
import { OptionsError, parseCommandArgs } from './args.js';
import { helpText } from './help.js';

const HELP = `usage: cloudfn start [root] [--port 8000] [--host 0.0.0.0] [--workers <n|auto>] [--metrics]
                    [--trigger-endpoint]

Serves every function of <root>/functions (default: the current folder) as JSON log lines on
stdout. PORT and HOST are read when the flags are absent; see docs/configuration.md.

  --workers <n|auto>  serve from n processes sharing the port (node:cluster); auto is one per CPU
  --metrics           serve Prometheus text at /_cloudfn/metrics (CLOUDFN_METRICS=true), summed
                      over the workers
  --trigger-endpoint  accept POST /_cloudfn/trigger/<function> (cloudfn trigger) to fire a
                      scheduled function now

Functions exporting config.schedule (cron) are fired on it, with service.trigger 'timer'; with
CLOUDFN_REDIS_URL set, one server of the fleet fires each. See docs/observability.md.

GET /_cloudfn/health answers 200 while serving and 503 while draining (CLOUDFN_HEALTH_PATH
changes it, off turns it off). See docs/deploy.md.`;

/** Start-up problems are the user's to fix: one line (plus a code frame for compile errors). */
function oneLine(error: unknown): never {
  if (error instanceof CloudfnError) throw new OptionsError(error.message);
  throw error;
}

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    workers: { type: 'string', short: 'w' },
    metrics: { type: 'boolean' },
    'trigger-endpoint': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(helpText(HELP, ['configuration.md', 'deploy.md', 'observability.md']) + '\n');
    return 0;
  }
  if (positionals.length > 1)
    throw new OptionsError(`start takes one project folder, got ${positionals.length}: ${positionals.join(' ')}`);
  const root = resolve(positionals[0] ?? '.');
  const flags = { port: values.port, host: values.host, metrics: values.metrics === true ? true : undefined };
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
      const config = await loadConfigFile(root);
      metrics = resolveOptions({ flags, env: process.env, config }).metrics;
      checkFunctionNames(
        config,
        discoverFunctions(root).map((fn) => fn.name),
      );
      await precompileProject(root);
    } catch (error) {
      oneLine(error);
    }
    // The workers' timers ask the primary which of them fires each (without Redis).
    const stopLocks = grantLocksToWorkers();
    const code = await runPrimary({ workers, metrics });
    stopLocks();
    return code;
  }

  try {
    const { prepare, before } = timers();
    await startProject(root, { flags, compile: createCompileHook(root), prepare, before });
  } catch (error) {
    oneLine(error);
  }
  // The server keeps the process alive; signals end it with exit code 0.
  return 0;
}
