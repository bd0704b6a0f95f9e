/**
 * How one runtime option is picked from its sources: the command-line flag, then the
 * environment variable, then `cloudfn.config`, then the default, through the option's
 * validator (the option kit's `readOption`); a bad value throws `CLOUDFN_OPTIONS` naming the
 * option and where it came from.
 */
import { createError } from '../errors.js';
import { type OptionArea, type OptionSpec, readOption } from '../option-kit.js';

/** Where option values come from; each layer is optional. */
export interface OptionSources {
  flags?: Partial<Record<string, unknown>>;
  env?: NodeJS.ProcessEnv;
  config?: Partial<Record<string, unknown>>;
}

const fail: OptionArea['fail'] = (name, _where, detail) => createError('CLOUDFN_OPTIONS', name, detail);

/** The runtime's options: `--port`, `PORT`, `cloudfn.config port`. */
const runtimeArea: OptionArea = {
  flag: (name) => `--${kebab(name)}`,
  config: (name) => `cloudfn.config ${name}`,
  fail,
};

/** The limits, which the config file nests under `limits`. */
const limitsArea: OptionArea = { ...runtimeArea, config: (name) => `cloudfn.config limits.${name}` };

/**
 * The value of option `name` from the first source that gives one.
 * @example pick('port', { env: 'PORT', parse: integer(0, 65535), default: 8000 }, { env: process.env })
 */
export function pick<T>(
  name: string,
  spec: OptionSpec<T>,
  sources: OptionSources,
  configLimits?: Record<string, unknown>,
): T {
  return pickFrom(name, spec, sources, configLimits)[0];
}

/**
 * `pick`, and where the value came from (`--port`, `PORT`, `cloudfn.config port`, `the default`).
 * @example pickFrom('maxParams', spec, sources, configLimits) // [1000, 'the default']
 */
export function pickFrom<T>(
  name: string,
  spec: OptionSpec<T>,
  sources: OptionSources,
  configLimits?: Record<string, unknown>,
): [T, string] {
  const layers = { flags: sources.flags, env: sources.env, config: configLimits ?? sources.config };
  return readOption(name, spec, layers, configLimits ? limitsArea : runtimeArea);
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
}
