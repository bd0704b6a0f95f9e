#!/usr/bin/env node
/**
 * The `cloudfn` command: it finds the command's module and runs it. Each command lives in
 * its own file, parses its arguments and calls the library; it holds no logic of its own.
 */
import { OptionsError } from './args.js';
import { dirname } from 'node:path';
import { docsPage } from './help.js';

type Command = { run(argv: string[]): Promise<number> };

/** Commands load lazily so `cloudfn sign` does not pay for esbuild or the runtime. */
const commands: Record<string, { summary: string; load: () => Promise<Command> }> = {
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
  build: { summary: 'bundle each function (and server.mjs) for deployment', load: () => import('./build.js') },
  init: { summary: 'create a project from a template (starter, media, callback)', load: () => import('./init.js') },
  keys: { summary: 'generate, convert or inspect an app key pair', load: () => import('./keys.js') },
  sign: { summary: 'sign a request: print Platform-Authorization or a curl command', load: () => import('./sign.js') },
  verify: { summary: 'verify a response, callback or request signature', load: () => import('./verify.js') },
  doctor: {
    summary: 'check keys, key_version and body against the troubleshooting list',
    load: () => import('./doctor.js'),
  },
  platform: {
    summary: 'run the local emulator of the open platform (media API, signatures, ffmpeg)',
    load: () => import('./platform.js'),
  },
};

function usage(): string {
  const rows = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `usage: cloudfn <command> [options]\n\ncommands:\n${rows.join('\n')}\n\nRun cloudfn <command> --help for a command's options.\ndocs: ${dirname(docsPage('dev.md'))}/ (one page per capability)`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage() + '\n');
    return name === undefined ? 1 : 0;
  }
  if (name === '--version' || name === '-v') {
    const { createRequire } = await import('node:module');
    const pkg = createRequire(import.meta.url)('../../../package.json') as { version: string };
    process.stdout.write(pkg.version + '\n');
    return 0;
  }
  const command = commands[name];
  if (command === undefined) {
    process.stderr.write(`cloudfn: unknown command ${JSON.stringify(name)}; run cloudfn --help for the list\n`);
    return 1;
  }
  return (await command.load()).run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    // A server command resolves only once it has shut down; others exit with their code.
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof OptionsError) {
      process.stderr.write(`cloudfn: ${error.message}\n`);
    } else {
      process.stderr.write(`cloudfn: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    process.exitCode = 1;
  },
);
