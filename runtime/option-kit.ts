/**
 * The option kit: one resolver for every table of options (the runtime's, the media client's,
 * the emulator's, the fleet's, the SDK stand-in's, the local gateway's). A spec per option
 * names its environment variable, its validator (which carries the JSON Schema of what it
 * accepts) and its default; an area names how its layers read in messages and which error it
 * throws. The layers are tried in one order: the value given (a flag, or an option in code),
 * the environment variable, the config file, the default.
 */

/** The JSON Schema (draft 2020-12) of the values a validator accepts, for editors. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/**
 * A validator: the raw value and where it came from in, the option's value out, or a throw
 * whose message is the detail of the area's error. It may carry the JSON Schema it accepts.
 */
export type Parse<T> = ((raw: unknown, where: string) => T) & { schema?: JsonSchema };

/**
 * Attaches the JSON Schema of a validator's values (read by the config file's schema).
 * @example described((raw) => Number(raw), { type: 'number' })
 */
export function described<T>(parse: (raw: unknown, where: string) => T, schema: JsonSchema): Parse<T> {
  return Object.assign(parse, { schema });
}

/** One option: its environment variable, validator and default. */
export interface OptionSpec<T> {
  env?: string;
  parse: Parse<T>;
  default: T;
}

/** The layers, in the order they are tried. */
export type OptionLayer = 'flag' | 'env' | 'config';

/** Where values come from; each layer is optional, and keyed by the option's name. */
export interface OptionLayers {
  /** Flags of a command, or the options given in code. */
  flags?: Partial<Record<string, unknown>> | undefined;
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The config file's values. */
  config?: Partial<Record<string, unknown>> | undefined;
}

/** How an area's options read in messages, and the error it throws for a refused value. */
export interface OptionArea {
  /** How a value given by flag or in code is named, e.g. `--port` or `timeoutMs`. */
  flag: (name: string) => string;
  /** How a config-file value is named, e.g. `cloudfn.config port`. @default the name */
  config?: (name: string) => string;
  /** The area's error for option `name`, whose value from `where` the validator refused with `detail`. */
  fail: (name: string, where: string, detail: string) => Error;
  /** Whether a raw value of `layer` counts as not given. @default undefined or '' */
  unset?: (raw: unknown, layer: OptionLayer) => boolean;
}

const emptyIsUnset = (raw: unknown): boolean => raw === undefined || raw === '';

/**
 * Whether a raw value is undefined or text of only whitespace: the `unset` of the areas that
 * trim what they read.
 * @example blankIsUnset('  ') // true
 */
export const blankIsUnset = (raw: unknown): boolean =>
  raw === undefined || (typeof raw === 'string' && raw.trim() === '');

/**
 * The area of settings read from the environment only, where a blank variable is unset.
 * @example envArea((_name, where, detail) => new Error(`${where} ${detail}`))
 */
export function envArea(fail: OptionArea['fail']): OptionArea {
  return { flag: (name) => name, fail, unset: blankIsUnset };
}

/**
 * Text, trimmed: the validator of the settings read from variables where blank is unset.
 * @example trimmed(' /srv/data ', 'CLOUDFN_PLATFORM_DATA') // '/srv/data'
 */
export const trimmed: Parse<string> = (raw) => String(raw).trim();

/**
 * The value of option `name` from the first layer that gives one, and where it came from
 * (the area's name of that layer, or `the default`); a refused value throws the area's error.
 * @example readOption('port', { env: 'PORT', parse: integer(0, 65535), default: 8000 }, { env: process.env }, area)
 */
export function readOption<T>(name: string, spec: OptionSpec<T>, layers: OptionLayers, area: OptionArea): [T, string] {
  const unset = area.unset ?? emptyIsUnset;
  const given: [OptionLayer, unknown, () => string][] = [
    ['flag', layers.flags?.[name], () => area.flag(name)],
    ['env', spec.env ? layers.env?.[spec.env] : undefined, () => spec.env!],
    ['config', layers.config?.[name], () => (area.config ? area.config(name) : name)],
  ];
  for (const [layer, raw, label] of given) {
    if (unset(raw, layer)) continue;
    const where = label();
    try {
      return [spec.parse(raw, where), where];
    } catch (error) {
      throw area.fail(name, where, (error as Error).message);
    }
  }
  return [spec.default, 'the default'];
}

/**
 * Every option of a spec table read with `readOption`, in the table's order.
 * @example readOptions({ port: portSpec, host: hostSpec }, { env: process.env }, area) // { port: 8000, host: '0.0.0.0' }
 */
export function readOptions<S extends Record<string, OptionSpec<unknown>>>(
  specs: S,
  layers: OptionLayers,
  area: OptionArea,
): { [K in keyof S]: S[K] extends OptionSpec<infer T> ? T : never } {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) values[name] = readOption(name, spec, layers, area)[0];
  return values as { [K in keyof S]: S[K] extends OptionSpec<infer T> ? T : never };
}
