/**
 * The primary process of `cloudfn start --workers <n>`: it checks the project once (so a bad
 * option is one line rather than one per worker), compiles the TypeScript functions once for
 * every worker, grants the workers' timer locks, is the hub of their WebSocket sessions when the
 * gateway is on (src/fleet/ws/session-hub.ts), and runs the workers until they stop.
 */
import { resolveOptions, type OptionSources } from '../../runtime/options.js';
import { checkFunctionNames } from '../../runtime/serve/config-file.js';
import { discoverFunctions } from '../../runtime/serve/discover.js';
import { runPrimary } from '../../runtime/serve/cluster.js';
import { loadProjectConfig } from '../build/project-config.js';
import { precompileProject } from '../build/precompile.js';
import { grantLocksToWorkers } from '../schedule/lock.js';
import { serveSessionHub } from '../fleet/ws/session-hub.js';
import { gatewayEnabled } from '../platform/gateway/gateway-options.js';

/** Options of `runStartPrimary`. */
export interface StartPrimaryOptions {
  root: string;
  workers: number;
  flags: OptionSources['flags'];
  env: NodeJS.ProcessEnv;
  /** Stop when the parent process goes (npm started this one). */
  exitWithParent: boolean;
}

/**
 * Checks and precompiles the project, then runs the workers; resolves with the exit code.
 * @example const code = await runStartPrimary({ root, workers: 4, flags, env: process.env, exitWithParent: false })
 */
export async function runStartPrimary(options: StartPrimaryOptions): Promise<number> {
  const { root, flags, env } = options;
  const config = await loadProjectConfig(root);
  const resolved = resolveOptions({ flags, env, config });
  checkFunctionNames(
    config,
    discoverFunctions(root, resolved.functionsDir, { ignore: resolved.functionsIgnore }).map((fn) => fn.name),
  );
  await precompileProject(root, resolved.functionsDir, resolved.functionsIgnore);
  // The workers' timers ask the primary which of them fires each (without Redis).
  const stopLocks = grantLocksToWorkers();
  // A push from one worker reaches a socket another holds through the primary's registry.
  const stopHub = gatewayEnabled({ env, config }) ? serveSessionHub() : undefined;
  const code = await runPrimary({
    workers: options.workers,
    metrics: resolved.metrics,
    exitWithParent: options.exitWithParent,
  });
  stopLocks();
  stopHub?.();
  return code;
}
