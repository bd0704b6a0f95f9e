/**
 * The validators of the runtime options (runtime/options.ts): each turns a raw value (a flag,
 * an environment variable's text, a `cloudfn.config` value) into the option's value or throws
 * a message naming the bad value and where it came from, and carries the JSON Schema of what it
 * accepts, for editors (the kit's `described`).
 */

import { described, type Parse } from '../option-kit.js';

/** Validators throw this; `pick` adds the option's name and wraps it as `CLOUDFN_OPTIONS`. */
function fail(where: string, detail: string): never {
  throw new TypeError(`${detail} (from ${where})`);
}

/**
 * `fail` with what was expected and the value refused: `must be true or false, got "yes"`.
 * Written here once rather than in each message: every bundle carries all the validators.
 */
function refuse(where: string, expected: string, raw: unknown): never {
  fail(where, `${expected}, got ${JSON.stringify(raw)}`);
}

/**
 * An integer from `min` to `max`, as a number or decimal digits.
 * @example integer(0, 65535)('8080', 'PORT') // 8080
 */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER): Parse<number> {
  return described(
    (raw, where) => {
      const value = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
        refuse(where, `must be an integer from ${min} to ${max}`, raw);
      }
      return value;
    },
    { type: 'integer', minimum: min, ...(max === Number.MAX_SAFE_INTEGER ? {} : { maximum: max }) },
  );
}

/** A non-empty string, trimmed. */
export const text: Parse<string> = described(
  (raw, where) => {
    if (typeof raw !== 'string' || raw.trim() === '') refuse(where, 'must be a non-empty string', raw);
    return raw.trim();
  },
  { type: 'string', minLength: 1 },
);

/**
 * A list of non-empty strings: an array in a config file, comma-separated text in a variable.
 * @example textList('scripts, tools', 'CLOUDFN_FUNCTIONS_IGNORE') // ['scripts', 'tools']
 */
export const textList: Parse<readonly string[]> = described(
  (raw, where) => {
    const items = typeof raw === 'string' ? raw.split(',').map((item) => item.trim()) : raw;
    if (!Array.isArray(items) || items.some((item) => typeof item !== 'string' || item.trim() === ''))
      refuse(where, 'must be a list of non-empty strings, such as ["scripts", "*.mjs"]', raw);
    return (items as string[]).map((item) => item.trim());
  },
  { type: 'array', items: { type: 'string', minLength: 1 } },
);

const HEADER_NAME = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

/** An HTTP header name, lower-cased. */
export const headerName: Parse<string> = described(
  (raw, where) => {
    const value = text(raw, where);
    if (!new RegExp(HEADER_NAME).test(value)) refuse(where, 'must be an HTTP header name', raw);
    return value.toLowerCase();
  },
  { type: 'string', pattern: HEADER_NAME },
);

/**
 * One of `values`.
 * @example oneOf('error', 'remove')
 */
export function oneOf<T extends string>(...values: T[]): Parse<T> {
  return described(
    (raw, where) => {
      if (typeof raw !== 'string' || !values.includes(raw as T))
        refuse(where, `must be one of ${values.join(', ')}`, raw);
      return raw as T;
    },
    { enum: values },
  );
}

/** `true`/`false`, or their texts `true`, `1`, `false`, `0`. */
export const bool: Parse<boolean> = described(
  (raw, where) => {
    if (typeof raw === 'boolean') return raw;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    return refuse(where, 'must be true or false', raw);
  },
  { type: 'boolean' },
);

/** A path starting with `/`, or `off` for none. */
export const healthPath: Parse<string | undefined> = described(
  (raw, where) => {
    const value = text(raw, where);
    if (value === 'off') return undefined;
    if (!value.startsWith('/')) refuse(where, 'must be a path starting with "/" (or off)', raw);
    return value;
  },
  { type: 'string', pattern: '^(/.*|off)$' },
);

/** A folder relative to the project root: no absolute path, no `..`. */
export const relativeDir: Parse<string> = (raw, where) => {
  const given = text(raw, where).replace(/\\/g, '/');
  if (given.startsWith('/') || /^[A-Za-z]:/.test(given) || given.split('/').includes('..'))
    refuse(where, 'must be a folder inside the project, such as "functions" or "." (the root)', raw);
  return given.replace(/\/+$/, '').replace(/^(\.\/)+(?=.)/, '') || '.';
};

const SERVICE_ID = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/**
 * Where each service of a self-hosted fleet listens, for inner calls: an object of service id
 * to `http://host:port` in a config file, `id=url` pairs separated by commas in a variable.
 * @example innerCallUrls('profile=http://10.0.0.5:8000', 'CLOUDFN_INNER_CALL_URLS') // { profile: 'http://10.0.0.5:8000' }
 */
export const innerCallUrls: Parse<Readonly<Record<string, string>>> = described(
  (raw, where) => {
    // A variable may hold the config's JSON object as well as `id=url` pairs.
    if (typeof raw === 'string' && raw.trim().startsWith('{')) {
      try {
        raw = JSON.parse(raw);
      } catch {
        fail(
          where,
          `is not JSON: ${JSON.stringify(raw)}; write {"profile":"http://10.0.0.5:8000"} or profile=http://10.0.0.5:8000`,
        );
      }
    }
    const entries =
      typeof raw === 'string'
        ? raw
            .split(',')
            .filter((item) => item.trim() !== '')
            .map((item) => {
              const at = item.indexOf('=');
              return [item.slice(0, at).trim(), at === -1 ? undefined : item.slice(at + 1).trim()];
            })
        : raw !== null && typeof raw === 'object' && !Array.isArray(raw)
          ? Object.entries(raw)
          : undefined;
    if (entries === undefined)
      refuse(where, 'must map service ids to base URLs, such as { "profile": "http://10.0.0.5:8000" }', raw);
    const out: Record<string, string> = {};
    for (const [id, url] of entries) {
      if (typeof id !== 'string' || !SERVICE_ID.test(id))
        fail(where, `has the service id ${JSON.stringify(id)}; an id is lower-case letters, digits and inner hyphens`);
      let parsed: URL | undefined;
      try {
        parsed = typeof url === 'string' ? new URL(url) : undefined;
      } catch {
        parsed = undefined;
      }
      if (parsed === undefined || parsed.protocol !== 'http:' || (parsed.pathname !== '/' && parsed.pathname !== ''))
        fail(
          where,
          `maps ${id} to ${JSON.stringify(url)}; give an http:// base URL with no path, such as "http://10.0.0.5:8000" (inner calls are HTTP only)`,
        );
      out[id] = `http://${parsed.host}`;
    }
    return out;
  },
  { type: 'object', additionalProperties: { type: 'string', pattern: '^http://' } },
);

/** A host name, an IPv4 address, or an IPv6 address in brackets; a leading dot means every subdomain. */
const HOST_NAME = /^(?:\.?[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?|\[[0-9A-Fa-f:.]+\])$/;

/**
 * The `Host` names a local server answers besides its own (`allowedHosts`): `true` for any, or
 * host names without scheme or port, as an array in a config file or comma-separated text in a
 * variable; lower-cased.
 * @example allowedHosts('abc.ngrok.app, .trycloudflare.com', 'CLOUDFN_ALLOWED_HOSTS') // ['abc.ngrok.app', '.trycloudflare.com']
 */
export const allowedHosts: Parse<readonly string[] | true> = described(
  (raw, where) => {
    if (raw === true || raw === 'true') return true;
    if (raw === false || raw === 'false') return [];
    const items = typeof raw === 'string' ? raw.split(',').map((item) => item.trim()) : raw;
    if (!Array.isArray(items) || items.some((item) => typeof item !== 'string'))
      refuse(where, 'must be true or a list of host names, such as ["abc.ngrok.app", ".example.test"]', raw);
    const names = (items as string[]).map((item) => item.trim().toLowerCase()).filter((item) => item !== '');
    const bad = names.find((name) => !HOST_NAME.test(name));
    if (bad !== undefined)
      fail(
        where,
        `has ${JSON.stringify(bad)}, which is not a host name; give names without scheme, port or path, such as "abc.ngrok.app" or "192.168.1.20"`,
      );
    return names;
  },
  { anyOf: [{ const: true }, { type: 'array', items: { type: 'string', pattern: HOST_NAME.source } }] },
);
