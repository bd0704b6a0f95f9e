/**
 * What a project says of itself as a service of the app: its id (`serviceId`, else made from the
 * folder's name, as the platform's `SERVICE_ID`) and the services it may call (`innerCall`, as the
 * platform enables targets on the source service under 访问控制-服务间调用), the limits its dev
 * gateway applies to calls addressed to it (`gatewayLimits`). And the session's
 * map of every service of a `cloudfn dev` session, which the session hands each service in one
 * variable.
 */
import { basename, join } from 'node:path';
import type { ConfigFile } from '../../../runtime/serve/config-file.js';
import { createServiceError } from './errors.js';

/** A service id: lower-case letters, digits and inner hyphens (it is a label of a hostname). */
export const ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The id of a folder whose name leaves nothing of an id (`中文项目`). */
export const FALLBACK_ID = 'dev-service';

/**
 * A valid service id made from a folder's name: lower-cased, every run of other characters a
 * hyphen, hyphens trimmed from both ends, cut to a hostname label's 63 characters, and
 * `dev-service` when nothing is left. A name that already is an id is kept.
 * @example serviceIdOfFolder('my.app') // 'my-app'
 * @example serviceIdOfFolder('中文项目') // 'dev-service'
 */
export function serviceIdOfFolder(name: string): string {
  const id = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 63)
    .replace(/^-+|-+$/g, '');
  return id === '' ? FALLBACK_ID : id;
}

/** One project as a service. */
export interface ServiceSetting {
  readonly id: string;
  /**
   * The folder's name when the id was made from it because it is not an id itself (`my.app`,
   * whose id is `my-app`); undefined when the config's `serviceId` or the name itself is the id.
   */
  readonly derivedFrom?: string;
  /** The targets it may call. */
  readonly innerCall: readonly string[];
  /** Where `innerCall` is written, for messages: `game/cloudfn.config.json's innerCall`. */
  readonly innerCallWhere: string;
}

const where = (root: string, key: string): string => `${join(basename(root), 'cloudfn.config.json')} ${key}`;

/**
 * Reads `serviceId` and `innerCall`; the id defaults to the folder's name, made into an id when
 * it is not one (`serviceIdOfFolder`): a project serves whatever its folder is called, and only
 * an explicit `serviceId` the platform would not take is refused.
 * @example readServiceSetting('/src/game', { innerCall: ['profile'] }) // { id: 'game', innerCall: ['profile'], ... }
 * @example readServiceSetting('/tmp/my.app', {}).derivedFrom // 'my.app' (its id is 'my-app')
 */
export function readServiceSetting(root: string, config: ConfigFile): ServiceSetting {
  const given = config['serviceId'];
  let id: string;
  let derivedFrom: string | undefined;
  if (given === undefined) {
    const folder = basename(root);
    id = serviceIdOfFolder(folder);
    if (id !== folder) derivedFrom = folder;
  } else {
    if (typeof given !== 'string' || !ID.test(given))
      throw createServiceError(
        'CLOUDFN_SERVICE_SETTING',
        where(root, 'serviceId'),
        JSON.stringify(given),
        'write the id as the platform shows it: lower-case letters, digits and inner hyphens, e.g. "game"',
      );
    id = given;
  }
  const list = config['innerCall'] ?? [];
  if (!Array.isArray(list) || list.some((item) => typeof item !== 'string' || !ID.test(item)))
    throw createServiceError(
      'CLOUDFN_SERVICE_SETTING',
      where(root, 'innerCall'),
      JSON.stringify(list),
      'list the service ids this service may call, e.g. ["profile"]',
    );
  return {
    id,
    ...(derivedFrom === undefined ? {} : { derivedFrom }),
    innerCall: list as string[],
    innerCallWhere: `innerCall in ${where(root, '').trimEnd()}`,
  };
}

/** The variable through which a dev session tells each service where all of them listen. */
export const SESSION_VAR = 'CLOUDFN_DEV_SERVICES';

/** Every service of a session: id → base URL (`http://127.0.0.1:8001`). */
export type SessionMap = Readonly<Record<string, string>>;

/**
 * The session's map, when this dev server is one service of several; undefined otherwise.
 * @example readSessionMap({ CLOUDFN_DEV_SERVICES: '{"game":"http://127.0.0.1:8000"}' })
 */
export function readSessionMap(env: Readonly<Record<string, string | undefined>>): SessionMap | undefined {
  const text = env[SESSION_VAR];
  if (text === undefined || text === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (
    parsed === null ||
    typeof parsed !== 'object' ||
    Array.isArray(parsed) ||
    Object.entries(parsed).some(([id, url]) => !ID.test(id) || typeof url !== 'string' || !url.startsWith('http://'))
  )
    throw createServiceError(
      'CLOUDFN_SERVICE_SESSION',
      `${SESSION_VAR} is ${JSON.stringify(text)}`,
      'it is set by cloudfn dev <folder> <folder>…; unset it to run one service',
    );
  return parsed as SessionMap;
}

/** The limits the dev gateway applies to calls addressed to this service; none by default. */
export interface GatewayLimits {
  /** Bytes a call's body may have (its Content-Length); more is answered 14021. */
  readonly maxBodySize?: number;
  /** Calls in any one second; more are answered 14010 (14030 with `debug`). */
  readonly qps?: number;
  /** The calls are the platform's test requests: the QPS limit answers 14030. @default false */
  readonly debug: boolean;
}

const LIMIT_FIX = 'write e.g. "gatewayLimits": { "maxBodySize": 102400, "qps": 10, "debug": false }';

/**
 * Reads `gatewayLimits`: each limit a positive whole number, `debug` a boolean.
 * @example readGatewayLimits('/src/rank', { gatewayLimits: { qps: 5 } }) // { qps: 5, debug: false }
 */
export function readGatewayLimits(root: string, config: ConfigFile): GatewayLimits {
  const given = config['gatewayLimits'];
  if (given === undefined) return { debug: false };
  if (given === null || typeof given !== 'object' || Array.isArray(given))
    throw createServiceError('CLOUDFN_SERVICE_SETTING', where(root, 'gatewayLimits'), JSON.stringify(given), LIMIT_FIX);
  const out: { maxBodySize?: number; qps?: number; debug: boolean } = { debug: false };
  for (const [key, value] of Object.entries(given as Record<string, unknown>)) {
    if (key === 'debug' && typeof value === 'boolean') out.debug = value;
    else if ((key === 'maxBodySize' || key === 'qps') && Number.isSafeInteger(value) && (value as number) > 0)
      out[key] = value as number;
    else
      throw createServiceError(
        'CLOUDFN_SERVICE_SETTING',
        where(root, `gatewayLimits.${key}`),
        JSON.stringify(value),
        key === 'debug' || key === 'maxBodySize' || key === 'qps'
          ? key === 'debug'
            ? 'debug is true or false'
            : `${key} is a positive whole number`
          : `the keys are maxBodySize, qps and debug; ${LIMIT_FIX}`,
      );
  }
  return out;
}
