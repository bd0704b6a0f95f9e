/**
 * How one runtime option is picked from its sources: the command-line flag, then the
 * environment variable, then `cloudfn.config`, then the default, through the option's
 * validator; a bad value throws `CLOUDFN_OPTIONS` naming the option and where it came from.
 */
import { createError } from '../errors.js';
import type { Parse } from './parsers.js';

type Source = 'flag' | 'env' | 'config' | 'default';

/** One option: its environment variable, validator and default. */
export interface Spec<T> {
  env?: string;
  parse: Parse<T>;
  default: T;
}

/** Where option values come from; each layer is optional. */
export interface OptionSources {
  flags?: Partial<Record<string, unknown>>;
  env?: NodeJS.ProcessEnv;
  config?: Partial<Record<string, unknown>>;
}

/**
 * The value of option `name` from the first source that gives one.
 * @example pick('port', { env: 'PORT', parse: integer(0, 65535), default: 8000 }, { env: process.env })
 */
export function pick<T>(
  name: string,
  spec: Spec<T>,
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
  spec: Spec<T>,
  sources: OptionSources,
  configLimits?: Record<string, unknown>,
): [T, string] {
  const layers: [Source, unknown][] = [
    ['flag', sources.flags?.[name]],
    ['env', spec.env ? sources.env?.[spec.env] : undefined],
    ['config', configLimits ? configLimits[name] : sources.config?.[name]],
  ];
  for (const [source, raw] of layers) {
    if (raw === undefined || raw === '') continue;
    const where =
      source === 'flag'
        ? `--${kebab(name)}`
        : source === 'env'
          ? spec.env!
          : `cloudfn.config ${configLimits ? 'limits.' : ''}${name}`;
    try {
      return [spec.parse(raw, where), where];
    } catch (error) {
      throw createError('CLOUDFN_OPTIONS', name, (error as Error).message);
    }
  }
  return [spec.default, 'the default'];
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
}
