/**
 * What a project says of itself as a service of the app: its id (`serviceId`, else the folder's
 * name, as the platform's `SERVICE_ID`) and the services it may call (`innerCall`, as the
 * platform enables targets on the source service under 访问控制-服务间调用). And the session's
 * map of every service of a `cloudfn dev` session, which the session hands each service in one
 * variable.
 */
import { basename, join } from 'node:path';
import type { ConfigFile } from '../../../runtime/serve/config-file.js';
import { createServiceError } from './errors.js';

/** The config keys this room reads. */
export const SERVICE_CONFIG_KEYS = ['serviceId', 'innerCall'] as const;

/** A service id: lower-case letters, digits and inner hyphens (it is a label of a hostname). */
export const ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** One project as a service. */
export interface ServiceSetting {
  readonly id: string;
  /** The targets it may call. */
  readonly innerCall: readonly string[];
  /** Where `innerCall` is written, for messages: `game/cloudfn.config.json's innerCall`. */
  readonly innerCallWhere: string;
}

const where = (root: string, key: string): string => `${join(basename(root), 'cloudfn.config.json')} ${key}`;

/**
 * Reads `serviceId` and `innerCall`; the id defaults to the folder's name.
 * @example readServiceSetting('/src/game', { innerCall: ['profile'] }) // { id: 'game', innerCall: ['profile'], ... }
 */
export function readServiceSetting(root: string, config: ConfigFile): ServiceSetting {
  const given = config['serviceId'];
  let id: string;
  if (given === undefined) {
    id = basename(root).toLowerCase().replaceAll('_', '-');
    if (!ID.test(id))
      throw createServiceError(
        'CLOUDFN_SERVICE_SETTING',
        'the service id of the folder',
        JSON.stringify(basename(root)),
        'a service id is lower-case letters, digits and inner hyphens; set "serviceId" in its cloudfn.config.json',
      );
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
  return { id, innerCall: list as string[], innerCallWhere: `innerCall in ${where(root, '').trimEnd()}` };
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
