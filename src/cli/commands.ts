/**
 * The table of the fourteen commands: name, one-line summary and module. The CLI's entry point and
 * the CLI reference (docs/cli.md) both read it.
 */
import type { CommandHelp } from './help.js';

/** A command's module: it runs, and it has its help. */
export type Command = { run(argv: string[]): Promise<number>; HELP: CommandHelp };

/** Commands load lazily so `cloudfn sign` does not pay for esbuild or the runtime. */
export const commands: Record<string, { summary: string; load: () => Promise<Command> }> = {
  start: {
    summary: 'serve functions/ in production mode',
    // The compile cache goes on before the runtime and the functions load, so a restart
    // skips compiling them (docs/performance.md#compile-cache).
    load: async () => {
      const { compileCacheWarning, enableCompileCache } = await import('../../runtime/serve/compile-cache.js');
      const warning = compileCacheWarning(enableCompileCache(process.env));
      if (warning !== undefined) process.stderr.write(warning);
      return import('./start.js');
    },
  },
  dev: { summary: 'serve functions/ with reload, readable logs and the debug console', load: () => import('./dev.js') },
  trigger: {
    summary: 'fire a scheduled function (config.schedule) now on a running server',
    load: () => import('./trigger.js'),
  },
  live: {
    summary: "send a live room's comments, gifts and likes to a running cloudfn dev",
    load: () => import('./live.js'),
  },
  db: {
    summary: 'export, import or reset the local store of dySDK.database(), beside a running dev or not',
    load: () => import('./db.js'),
  },
  build: {
    summary: 'bundle every function into server.mjs (or per function) for deployment',
    load: () => import('./build.js'),
  },
  init: { summary: 'create a project from a template (starter, media, callback)', load: () => import('./init.js') },
  keys: { summary: 'generate, convert or inspect an app key pair', load: () => import('./keys.js') },
  sign: { summary: 'sign a request: print Platform-Authorization or a curl command', load: () => import('./sign.js') },
  verify: { summary: 'verify a response, callback or request signature', load: () => import('./verify.js') },
  doctor: {
    summary: 'check keys, key_version and body against the troubleshooting list',
    load: () => import('./doctor.js'),
  },
  openapi: {
    summary: 'print the OpenAPI 3.1 document of the functions and their declared params',
    load: () => import('./openapi.js'),
  },
  client: {
    summary: 'write a typed client of the functions for the code that calls them',
    load: () => import('./client.js'),
  },
  platform: {
    summary: 'run the local emulator of the open platform (media API, signatures, ffmpeg)',
    load: () => import('./platform.js'),
  },
};
