/**
 * What `cloudfn start` checks and installs in its process before any function loads: the Redis
 * client of a fleet setting (refused with one line when it cannot load), source maps for stacks
 * that name the .ts line, and the server SDK stand-in for JavaScript functions. Also whether npm
 * started the process (then the server stops with its parent).
 */
import { discoverFunctions } from '../../runtime/serve/discover.js';
import { CloudfnError } from '../../runtime/errors.js';
import { checkRedisClient } from '../fleet/preflight.js';
import { installSdkResolver } from '../platform/sdk/node-resolver.js';

/**
 * Readies the process to serve the project at `root`, or throws a `CloudfnError` whose message
 * is the one line to print (`FLEET_NO_CLIENT: ...`).
 * @example await prepareProcess('/srv/app', process.env)
 */
export async function prepareProcess(root: string, env: NodeJS.ProcessEnv): Promise<void> {
  // A Redis setting whose client cannot load refuses to start: serving would answer signed
  // requests 500 and let the media client stop sharing.
  const noClient = await checkRedisClient(env);
  if (noClient !== undefined)
    throw new CloudfnError(noClient.code, noClient.status, `${noClient.code}: ${noClient.message}`);

  // The compile hook writes inline source maps: with them on, a crash's stack names the .ts line
  // (functions/boom.ts:3:9) rather than the compiled .cloudfn/start/boom.mjs. Stacks are only
  // mapped when an error's stack is read, so requests that do not fail pay nothing.
  process.setSourceMapsEnabled(true);
  // JavaScript functions importing the platform's server SDK get the stand-in when it is not
  // installed (TypeScript ones get it from the compile hook).
  await installSdkResolver(root, { javascript: hasJavaScriptFunctions(root) });
}

/**
 * Whether npm (`npm start`, `npx cloudfn start`, `npm exec`) started this process: npm sets
 * `npm_command` in its children's environment. Killed by its PID, npm passes no signal on, so
 * then the server stops when its parent goes, as `cloudfn dev` does. Otherwise it does not: a
 * production server may be left running on purpose (`nohup cloudfn start &`, then the shell
 * exits), and under a supervisor its parent does not go.
 * @example startedByNpm({ npm_command: 'exec' }) // true
 */
export function startedByNpm(env: NodeJS.ProcessEnv): boolean {
  return env['npm_command'] !== undefined && env['npm_command'] !== '';
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
