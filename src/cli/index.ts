#!/usr/bin/env node
/**
 * The `cloudfn` command: it finds the command's module and runs it. Each command lives in
 * its own file, parses its arguments and calls the library; it holds no logic of its own.
 */
import { closest } from '../../runtime/closest.js';
import { OptionsError } from './args.js';
import { dirname } from 'node:path';
import { commands } from './commands.js';
import { docsPage, formatHelp } from './help.js';

function usage(): string {
  const rows = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `usage: cloudfn <command> [options]\n       cloudfn help <command>\n\ncommands:\n${rows.join('\n')}\n\nRun cloudfn help <command> (or cloudfn <command> --help) for a command's options and examples.\ndocs: ${dirname(docsPage('dev.md'))}/ (README.md indexes the pages; cli.md lists every command)`;
}

/** `cloudfn help <command>`: that command's help, exactly as `cloudfn <command> --help` prints it. */
async function help(topic: string | undefined): Promise<number> {
  if (topic === undefined) {
    process.stdout.write(usage() + '\n');
    return 0;
  }
  const command = commands[topic];
  if (command === undefined) throw new OptionsError(unknownCommand(topic));
  process.stdout.write(formatHelp((await command.load()).HELP) + '\n');
  return 0;
}

function unknownCommand(name: string): string {
  const guess = closest(name, Object.keys(commands));
  return `unknown command ${JSON.stringify(name)}; ${guess === undefined ? 'run cloudfn --help for the list' : `did you mean ${guess}?`}`;
}

/** The commands that import the project's functions without serving them. */
const IMPORTS_FUNCTIONS: ReadonlySet<string> = new Set(['openapi', 'client']);

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === 'help') return help(rest[0]);
  if (name === undefined || name === '--help' || name === '-h') {
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
  if (command === undefined) throw new OptionsError(unknownCommand(name));
  return (await command.load()).run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    // A server command resolves only once it has shut down; others exit with their code.
    process.exitCode = code;
    // The contract commands import the project's functions, whose modules may open timers or
    // connections when imported: those must not keep the command from ending. Unref'd, this
    // timer lets a process with nothing left end at once.
    if (IMPORTS_FUNCTIONS.has(process.argv[2] ?? '')) setTimeout(() => process.exit(code), 1000).unref();
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
