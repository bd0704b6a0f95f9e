/**
 * `cloudfn start [root] --port <n> --host <h>`: serve a project in production mode.
 */
import { resolve } from 'node:path';
import { startProject } from '../../runtime/start.js';
import { CloudfnError } from '../../runtime/errors.js';
import { createCompileHook } from '../build/compile.js';
import { OptionsError, parseCommandArgs } from './args.js';

const HELP = `usage: cloudfn start [root] [--port 8000] [--host 0.0.0.0]

Serves every function of <root>/functions (default: the current folder) as JSON log lines on
stdout. PORT and HOST are read when the flags are absent; see docs/configuration.md.`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (positionals.length > 1) throw new OptionsError(`start takes one project folder, got ${positionals.length}: ${positionals.join(' ')}`);
  const root = resolve(positionals[0] ?? '.');
  try {
    await startProject(root, { flags: { port: values.port, host: values.host }, compile: createCompileHook(root) });
  } catch (error) {
    // Start-up problems are the user's to fix: one line (plus a code frame for compile errors).
    if (error instanceof CloudfnError) throw new OptionsError(error.message);
    throw error;
  }
  // The server keeps the process alive; signals end it with exit code 0.
  return 0;
}
