/**
 * Argument parsing shared by the commands: `node:util` parseArgs, with every mistake turned
 * into an `OptionsError` that the CLI prints as one line, without a stack, and exits 1.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { closest } from '../../runtime/closest.js';
import { type CommandHelp, formatHelp } from './help.js';

/** A bad flag, env var or config value; the CLI prints its message alone and exits 1. */
export class OptionsError extends Error {
  override name = 'OptionsError';
}

/** The flags a command accepts, in the shape `node:util` parseArgs takes. */
export type Options = Record<
  string,
  { type: 'string' | 'boolean'; short?: string; multiple?: boolean; default?: string | boolean | string[] | boolean[] }
>;

type Value<T> = T extends { type: 'boolean' }
  ? T extends { multiple: true }
    ? boolean[]
    : boolean
  : T extends { multiple: true }
    ? string[]
    : string;
type WithDefault<T> = T extends { default: unknown } ? true : false;

/** The values of the flags given (those with a default are always present), and the positionals. */
export interface ParsedArgs<O extends Options> {
  values: { [K in keyof O as WithDefault<O[K]> extends true ? K : never]: Value<O[K]> } & {
    [K in keyof O as WithDefault<O[K]> extends true ? never : K]?: Value<O[K]>;
  };
  positionals: string[];
}

/**
 * Parses `argv` against `options`, allowing positionals; unknown flags and missing values
 * become an `OptionsError` naming the flag.
 * @example const { values, positionals } = parseCommandArgs(argv, { port: { type: 'string' } })
 */
export function parseCommandArgs<O extends Options>(argv: string[], options: O): ParsedArgs<O> {
  try {
    return parseArgs({
      args: attachPemValues(argv, options),
      options,
      allowPositionals: true,
      strict: true,
    }) as unknown as ParsedArgs<O>;
  } catch (error) {
    const unknown = /^Unknown option '(-[^']*)'/.exec(error instanceof Error ? error.message : '')?.[1];
    if (unknown !== undefined) throw new OptionsError(unknownOption(unknown, Object.keys(options)));
    throw new OptionsError(error instanceof Error ? error.message.split('\n')[0]! : String(error));
  }
}

/**
 * `parseCommandArgs` with the `--help` (`-h`) flag every command takes: with it, prints the
 * command's help and answers undefined, and the command returns 0.
 * @example const args = parseOrHelp(argv, { url: { type: 'string' } }, HELP); if (args === undefined) return 0;
 */
export function parseOrHelp<O extends Options>(
  argv: string[],
  options: O,
  help: CommandHelp,
): ParsedArgs<O & { help: { type: 'boolean'; short: 'h' } }> | undefined {
  const parsed = parseCommandArgs(argv, { ...options, help: { type: 'boolean', short: 'h' } } as O & {
    help: { type: 'boolean'; short: 'h' };
  });
  if ((parsed.values as { help?: boolean }).help !== true) return parsed;
  process.stdout.write(`${formatHelp(help)}\n`);
  return undefined;
}

/**
 * The one project folder a command takes (`cloudfn openapi ./app`), resolved; `.` when none is
 * given. More than one is an `OptionsError` naming the count and `example`.
 * @example const root = projectFolder(positionals, 'openapi', 'cloudfn openapi ./app')
 */
export function projectFolder(positionals: readonly string[], command: string, example: string): string {
  if (positionals.length > 1)
    throw new OptionsError(`${command} takes one project folder, got ${positionals.length}; e.g. ${example}`);
  return resolve(positionals[0] ?? '.');
}

/**
 * The message for an unknown flag: the closest known one when it is a likely typo (at most a
 * third of its letters off), else the list.
 * @example unknownOption('--prot', ['port', 'host']) // 'unknown option --prot; did you mean --port?'
 */
export function unknownOption(flag: string, known: readonly string[]): string {
  const best = closest(flag.replace(/^-+/, ''), known);
  if (best !== undefined) return `unknown option ${flag}; did you mean --${best}?`;
  return `unknown option ${flag}; the options are ${known.map((k) => `--${k}`).join(', ')}`;
}

/** Reads a flag that must be present, or throws an `OptionsError` that says how to give it. */
export function required(value: string | undefined, flag: string, example: string): string {
  if (value === undefined || value === '') throw new OptionsError(`--${flag} is required, e.g. --${flag} ${example}`);
  return value;
}

/**
 * `--private-key "$APP_PRIVATE_KEY"` passes PEM text, which starts with `-----BEGIN`; parseArgs
 * takes any value starting with `-` for a flag and refuses it as ambiguous. A string option
 * followed by PEM text is rewritten to `--flag=<text>`, which parseArgs reads as the value.
 */
function attachPemValues(argv: string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    if (name !== undefined && options[name]?.type === 'string' && next?.trimStart().startsWith('-----')) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}
