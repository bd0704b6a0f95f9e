/**
 * `cloudfn start` as a library call: ready the process (preflight.ts), then serve the project in
 * this process, or, with `workers`, be the cluster's primary (primary.ts) or one of its workers.
 * The scheduled functions fire on their `config.schedule` in every mode, and the WebSocket
 * gateway runs in each serving process when the config turns it on (start-gateway.ts). The CLI
 * only parses its flags and calls `startServer`.
 */
import cluster from 'node:cluster';
import type { Logger } from '../../runtime/log/logger.js';
import type { OptionSources } from '../../runtime/options.js';
import { clusterLogger, runWorker } from '../../runtime/serve/cluster.js';
import { loadConfigFile } from '../../runtime/serve/config-file.js';
import { startProject, type RunningServer } from '../../runtime/serve/start.js';
import { createCompileHook } from '../build/compile.js';
import { TOOL_CONFIG_KEYS } from '../build/project-config.js';
import { precompiledHook } from '../build/precompile.js';
import { serveTimers } from '../schedule/serve-timers.js';
import { prepareProcess, startedByNpm } from './preflight.js';
import { runStartPrimary } from './primary.js';
import { startGateway } from './start-gateway.js';

/** Options of `startServer`. */
export interface StartServerOptions {
  /** The project folder (absolute). */
  root: string;
  /** The runtime's flags, as typed (`--port`, `--metrics`, `--functions-dir`, ...). */
  flags?: OptionSources['flags'];
  /** Serve from this many processes sharing the port (node:cluster). @default undefined (one) */
  workers?: number;
  /** Serve `POST ${CLOUDFN_PREFIX}/trigger/<function>` (`--trigger-endpoint`). @default false */
  triggerEndpoint?: boolean;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Where a single process logs (a cluster's processes write JSON lines to stdout). @default JSON lines on stdout */
  logger?: Logger;
  /** Exit 0 after a graceful shutdown on SIGTERM/SIGINT (single process). @default true */
  handleSignals?: boolean;
}

/** What `startServer` became: a server in this process, or a cluster's primary or worker. */
export type StartedServer =
  | { mode: 'single'; server: RunningServer }
  | { mode: 'primary'; exitCode: number }
  | { mode: 'worker' };

/**
 * Starts a project the way `cloudfn start` does. Start-up problems reject with a `CloudfnError`
 * whose message is the one line to show.
 * @example const started = await startServer({ root: '/srv/app', flags: { port: '8000' } })
 */
export async function startServer(options: StartServerOptions): Promise<StartedServer> {
  const { root, workers } = options;
  const env = options.env ?? process.env;
  const flags = options.flags ?? {};
  await prepareProcess(root, env);
  const timers = (): ReturnType<typeof serveTimers> => serveTimers({ endpoint: options.triggerEndpoint === true, env });
  // The config is read once, for the server and the gateway's setting alike.
  const serving = async (compile: ReturnType<typeof precompiledHook>, workerOfPrimary: boolean) => {
    const config = await loadConfigFile(root, { compile, configKeys: TOOL_CONFIG_KEYS });
    const gateway = startGateway({ env, config, workerOfPrimary });
    return { compile, config, configKeys: TOOL_CONFIG_KEYS, extensions: [timers(), gateway] };
  };
  if (workers !== undefined && cluster.isWorker) {
    await runWorker(
      async () => {
        return startProject(root, {
          flags,
          env,
          handleSignals: false,
          logger: clusterLogger(),
          ...(await serving(precompiledHook(root), true)),
        });
      },
      (error) => (error instanceof Error ? error.message : String(error)),
    );
    return { mode: 'worker' };
  }
  if (workers !== undefined) {
    const exitCode = await runStartPrimary({ root, workers, flags, env, exitWithParent: startedByNpm(env) });
    return { mode: 'primary', exitCode };
  }
  const server = await startProject(root, {
    flags,
    env,
    ...(await serving(createCompileHook(root), false)),
    exitWithParent: startedByNpm(env),
    ...(options.handleSignals === false ? { handleSignals: false } : {}),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  return { mode: 'single', server };
}
