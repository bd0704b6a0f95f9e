/**
 * The `components` setting and the platform's variables. On the platform, enabling a component
 * injects its address and account: `REDIS_ADDRESS`/`REDIS_USERNAME`/`REDIS_PASSWORD` and the
 * same for `MYSQL_*` (`host:port`), and `MONGO_*`, whose address is a comma list of `host:port`
 * that may carry `/?authSource=…`, so that `mongodb://${user}:${pass}@${MONGO_ADDRESS}` is the
 * URL. Here: reading `{ redis, mysql, mongo }` (true: a local server cloudfn starts; a string:
 * an existing server), and turning a server's URL into exactly those variables.
 */
import { createComponentError } from './errors.js';

/** Which components a project uses, as `cloudfn.config.json`'s `components` says. */
export interface ComponentsSetting {
  /** `true`: cloudfn starts redis-server; a string: `redis://[user[:password]@]host:port`. */
  readonly redis?: true | string;
  /** `true`: cloudfn starts mariadbd (or mysqld); a string: `mysql://user:password@host:port`. */
  readonly mysql?: true | string;
  /** A string only: `mongodb://[user:password@]host:port[,host:port…][/[db][?authSource=…]]`. */
  readonly mongo?: string;
  /** `true`: the local object store answers the platform's TOS hosts (src/platform/storage/). */
  readonly tos?: true;
}

/** The components that are not a server cloudfn starts, but a local service of `cloudfn dev`. */
export const SERVICE_COMPONENTS = ['tos'] as const;

/** The component names, in the order they start. */
export const COMPONENT_NAMES = ['redis', 'mysql', 'mongo'] as const;
export type ComponentName = (typeof COMPONENT_NAMES)[number];

/** One component's variables, named as the platform names them. */
export type ComponentEnv = Record<string, string>;

const EXAMPLES: Record<ComponentName, string> = {
  redis: 'redis://user:password@127.0.0.1:6379',
  mysql: 'mysql://user:password@127.0.0.1:3306',
  mongo: 'mongodb://user:password@127.0.0.1:27017/?authSource=admin',
};

/** An example of the string form of `key`, for messages. */
export const exampleUrl = (key: ComponentName): string => EXAMPLES[key];

/**
 * Validates a `components` value. Unknown keys, `false`-like values other than absent, and
 * `mongo: true` (no MongoDB server can be started here) are refused with the fix.
 * @example readComponentsSetting({ redis: true, mysql: 'mysql://u:p@db:3306' })
 */
export function readComponentsSetting(value: unknown): ComponentsSetting {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw createComponentError(
      'CLOUDFN_COMPONENT_SETTING',
      '(the object)',
      `is ${JSON.stringify(value)}`,
      'write an object such as { "redis": true, "mysql": true }',
    );
  const out: Record<string, true | string> = {};
  for (const [key, setting] of Object.entries(value)) {
    if (key === 'tos') {
      if (setting === false) continue;
      if (setting !== true)
        throw createComponentError(
          'CLOUDFN_COMPONENT_SETTING',
          key,
          `is ${JSON.stringify(setting)}`,
          "write true: cloudfn dev answers the platform's TOS hosts from a local store (docs/storage.md)",
        );
      out[key] = true;
      continue;
    }
    if (!(COMPONENT_NAMES as readonly string[]).includes(key))
      throw createComponentError(
        'CLOUDFN_COMPONENT_SETTING',
        key,
        'is not a component',
        `use one of ${[...COMPONENT_NAMES, ...SERVICE_COMPONENTS].join(', ')}`,
      );
    const name = key as ComponentName;
    if (setting === false) continue;
    if (setting === true && name === 'mongo')
      throw createComponentError(
        'CLOUDFN_COMPONENT_SETTING',
        name,
        'is true',
        `cloudfn cannot start a MongoDB server; run one (docker run -d -p 27017:27017 mongo) and give its URL, e.g. "${EXAMPLES.mongo}"`,
      );
    if (setting !== true && (typeof setting !== 'string' || setting === ''))
      throw createComponentError(
        'CLOUDFN_COMPONENT_SETTING',
        name,
        `is ${JSON.stringify(setting)}`,
        `write true (a local server) or the URL of a running one, e.g. "${EXAMPLES[name]}"`,
      );
    if (typeof setting === 'string') componentEnv(name, setting);
    out[name] = setting;
  }
  return out as ComponentsSetting;
}

const decode = (text: string | undefined): string => (text === undefined ? '' : decodeURIComponent(text));

/** `scheme://[user[:password]@]host:port[/…]`, or a bare `host:port`, as the three variables. */
function hostUrlEnv(name: 'redis' | 'mysql', url: string, schemes: string[]): ComponentEnv {
  const match =
    /^(?:([a-z+]+):\/\/)?(?:([^:@/]*)(?::([^@/]*))?@)?(\[[^\]]+\]|[^:/?#@]+):(\d{1,5})\/?(?:[?#].*)?$/i.exec(url);
  const scheme = match?.[1]?.toLowerCase();
  const port = Number(match?.[5]);
  if (match === null || (scheme !== undefined && !schemes.includes(scheme)) || port < 1 || port > 65535)
    throw createComponentError(
      'CLOUDFN_COMPONENT_SETTING',
      name,
      `is ${JSON.stringify(url)}`,
      `give ${schemes[0]}://user:password@host:port with a port, e.g. "${EXAMPLES[name]}"`,
    );
  const upper = name.toUpperCase();
  return {
    [`${upper}_ADDRESS`]: `${match[4]}:${port}`,
    [`${upper}_USERNAME`]: decode(match[2]),
    [`${upper}_PASSWORD`]: decode(match[3]),
  };
}

/** `mongodb://[user:password@]hosts[/rest]` as `MONGO_*`; the address keeps the hosts and the rest. */
function mongoEnv(url: string): ComponentEnv {
  const match = /^mongodb:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#@]+)(\/.*)?$/i.exec(url);
  const hostsOk = match?.[3]?.split(',').every((host) => /^(\[[^\]]+\]|[^:,]+)(:\d{1,5})?$/.test(host)) === true;
  if (match === null || !hostsOk)
    throw createComponentError(
      'CLOUDFN_COMPONENT_SETTING',
      'mongo',
      `is ${JSON.stringify(url)}`,
      `give mongodb://user:password@host:port[,host:port…][/?authSource=…] (mongodb+srv:// has no host list to inject), e.g. "${EXAMPLES.mongo}"`,
    );
  return {
    MONGO_ADDRESS: `${match[3]}${match[4] ?? ''}`,
    MONGO_USERNAME: decode(match[1]),
    MONGO_PASSWORD: decode(match[2]),
  };
}

/**
 * The platform's variables for a component at `url`.
 * @example componentEnv('redis', 'redis://app:pw@127.0.0.1:6380')
 * // { REDIS_ADDRESS: '127.0.0.1:6380', REDIS_USERNAME: 'app', REDIS_PASSWORD: 'pw' }
 */
export function componentEnv(name: ComponentName, url: string): ComponentEnv {
  if (name === 'mongo') return mongoEnv(url);
  return hostUrlEnv(name, url, name === 'redis' ? ['redis'] : ['mysql', 'mariadb']);
}
