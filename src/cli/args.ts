/**
 * Argument parsing shared by the commands: `node:util` parseArgs, with every mistake turned
 * into an `OptionsError` that the CLI prints as one line, without a stack, and exits 1.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A bad flag, env var or config value; the CLI prints its message alone and exits 1. */
export class OptionsError extends Error {
  override name = 'OptionsError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses `argv` against `options`, allowing positionals; unknown flags and missing values
 * become an `OptionsError` naming the flag.
 * @example const { values, positionals } = parseCommandArgs(argv, { port: { type: 'string' } })
 */
export function parseCommandArgs<O extends Options>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new OptionsError(error instanceof Error ? error.message.split('\n')[0]! : String(error));
  }
}

/** Reads a flag that must be present, or throws an `OptionsError` that says how to give it. */
export function required(value: string | undefined, flag: string, example: string): string {
  if (value === undefined || value === '') throw new OptionsError(`--${flag} is required, e.g. --${flag} ${example}`);
  return value;
}
