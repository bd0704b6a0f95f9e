/**
 * The body and multipart limits, once: each with its environment variable and default
 * (documented in docs/configuration.md). `defaultLimits`, the env names and the keys a
 * function's `config` accepts are all read from here; runtime/options.ts resolves them.
 */
import type { Limits } from '../types.js';

/** 10 MiB: the default largest body and file. */
const TEN_MIB = 10 * 1024 * 1024;

/** Each limit's environment variable and default. */
export const limitSpecs: { readonly [K in keyof Limits]: { readonly env: string; readonly default: number } } = {
  maxBodySize: { env: 'CLOUDFN_MAX_BODY_SIZE', default: TEN_MIB },
  maxFileSize: { env: 'CLOUDFN_MAX_FILE_SIZE', default: TEN_MIB },
  maxFiles: { env: 'CLOUDFN_MAX_FILES', default: 10 },
  maxFields: { env: 'CLOUDFN_MAX_FIELDS', default: 100 },
  maxParts: { env: 'CLOUDFN_MAX_PARTS', default: 110 },
  maxFieldSize: { env: 'CLOUDFN_MAX_FIELD_SIZE', default: 1024 * 1024 },
  maxPartHeaderPairs: { env: 'CLOUDFN_MAX_PART_HEADER_PAIRS', default: 2000 },
  // body-parser's parameterLimit: enough for any form a person fills in, and it bounds the
  // work of one parse (1.1 million pairs took 0.8 s of one core before this limit).
  maxParams: { env: 'CLOUDFN_MAX_PARAMS', default: 1000 },
};

/** The environment variable of each limit. */
export const LIMIT_ENV: Readonly<Record<keyof Limits, string>> = /* @__PURE__ */ Object.freeze(
  Object.fromEntries(Object.entries(limitSpecs).map(([key, spec]) => [key, spec.env])) as Record<keyof Limits, string>,
);

/** The names of the limits, in the order of docs/configuration.md. */
export const LIMIT_KEYS: readonly (keyof Limits)[] = Object.freeze(Object.keys(limitSpecs) as (keyof Limits)[]);

/** The default limits. */
export const defaultLimits: Readonly<Limits> = Object.freeze(
  Object.fromEntries(LIMIT_KEYS.map((key) => [key, limitSpecs[key].default])) as unknown as Limits,
);
