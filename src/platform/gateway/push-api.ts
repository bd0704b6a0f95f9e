/**
 * The push API of the platform's WebSocket gateway, served locally: one function from a request
 * (method, path, headers, body) to the platform's envelope `{ data, err_msg, err_no }`, so the
 * dev server's HTTP route, `openApiInvoke`, `cloudfn/testing` and `cloudfn start` all answer
 * alike. Sessions are found and reached through the gateway's directory (src/fleet/ws/), which
 * may hold sessions of other processes. Bad input
 * answers `err_no` != 0 with a message naming the header and the fix (docs/gateway.md#errors).
 */
import { type Envelope, failure, success } from './envelope.js';
import { PlatformError, platformError } from '../errors.js';
import type { SessionDirectory } from '../../fleet/ws/session-directory.js';
import type { Gateway, PushVia } from './gateway.js';
import { MAX_PUSH_IDS, PUSH_HEADERS, PUSH_PATHS } from './names.js';

/** A request to the push API. */
export interface PushRequest {
  method: string;
  /** The path on the push host, e.g. `/ws/push_data` (a query string is ignored). */
  path: string;
  /** Header values by lower-case name. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: Buffer;
}

/** The answer: an HTTP status and the platform's envelope. */
export interface PushAnswer {
  status: number;
  body: Envelope;
}

function header(request: PushRequest, name: string): string | undefined {
  const value = request.headers[name];
  const text = Array.isArray(value) ? value.join(',') : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/**
 * Reads a list header. The platform's own example writes bare ids (`[sessionid_1,sessionid_2]`)
 * and its session ids are numbers, so entries may be JSON strings, numbers or bare words; they
 * are kept as text (a long number parsed by JSON.parse would lose digits).
 */
export function parseIdList(name: string, text: string): string[] {
  const inner = /^\[(.*)\]$/s.exec(text.trim())?.[1];
  if (inner === undefined)
    throw platformError('PLATFORM_PARAM_ERROR', `${name} must be a JSON array such as ["id1","id2"], got ${text}`);
  if (inner.trim() === '') throw platformError('PLATFORM_PARAM_ERROR', `${name} is an empty list; give 1 to 5 ids`);
  const ids: string[] = [];
  for (const raw of inner.split(',')) {
    const entry = raw.trim();
    let id = entry;
    if (entry.startsWith('"')) {
      try {
        id = JSON.parse(entry) as string;
      } catch {
        throw platformError('PLATFORM_PARAM_ERROR', `${name} has a malformed entry ${entry}; write ["id1","id2"]`);
      }
    }
    if (id === '' || /[\s"[\]]/.test(id))
      throw platformError('PLATFORM_PARAM_ERROR', `${name} has an empty or malformed entry in ${text}`);
    ids.push(id);
  }
  if (ids.length > MAX_PUSH_IDS) throw platformError('PLATFORM_WS_TOO_MANY_IDS', name, ids.length, MAX_PUSH_IDS);
  return ids;
}

/** Exactly one of X-TT-WS-SESSIONIDS and X-TT-WS-OPENIDS, read. */
function targets(request: PushRequest, allowSessions: boolean): { kind: 'session' | 'openid'; ids: string[] } {
  const sessions = header(request, PUSH_HEADERS.sessionIds);
  const openids = header(request, PUSH_HEADERS.openIds);
  if (!allowSessions) {
    if (openids === undefined)
      throw platformError('PLATFORM_PARAM_ERROR', 'X-TT-WS-OPENIDS is required: the anchor\'s openid as ["openid"]');
    return { kind: 'openid', ids: parseIdList('X-TT-WS-OPENIDS', openids) };
  }
  if (sessions !== undefined && openids !== undefined)
    throw platformError(
      'PLATFORM_PARAM_ERROR',
      'send X-TT-WS-SESSIONIDS or X-TT-WS-OPENIDS, not both (the platform takes one of the two)',
    );
  if (sessions !== undefined) return { kind: 'session', ids: parseIdList('X-TT-WS-SESSIONIDS', sessions) };
  if (openids !== undefined) return { kind: 'openid', ids: parseIdList('X-TT-WS-OPENIDS', openids) };
  throw platformError(
    'PLATFORM_PARAM_ERROR',
    'X-TT-WS-SESSIONIDS or X-TT-WS-OPENIDS is required, a JSON array of at most 5 ids such as ["7300000000001"]',
  );
}

function group(request: PushRequest): { name: string; value: string } {
  const name = header(request, PUSH_HEADERS.groupName);
  const value = header(request, PUSH_HEADERS.groupValue);
  if (name === undefined || value === undefined)
    throw platformError(
      'PLATFORM_PARAM_ERROR',
      `X-TT-WS-GROUPNAME and X-TT-WS-GROUPVALUE are both required, got ${name === undefined ? 'no' : 'a'} name and ${value === undefined ? 'no' : 'a'} value`,
    );
  return { name, value };
}

/** A push body is sent as a binary frame when declared as bytes, else as a text frame. */
function isBinary(request: PushRequest): boolean {
  const type = header(request, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type === 'application/octet-stream') return true;
  // A text frame must be UTF-8; bytes that are not go as they are, in a binary frame.
  return !isUtf8(request.body);
}

function isUtf8(bytes: Buffer): boolean {
  return Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}

function ok(data: unknown): PushAnswer {
  return { status: 200, body: success(data) };
}

/** The session ids a target list reaches, and the entries that reached no open connection. */
async function resolve(
  directory: SessionDirectory,
  kind: 'session' | 'openid',
  ids: string[],
): Promise<{ sessions: string[]; failed: string[] }> {
  if (kind === 'session') return { sessions: ids, failed: [] };
  const sessions: string[] = [];
  const failed: string[] = [];
  const found = await Promise.all(ids.map((openid) => directory.sessionsOf(openid)));
  for (const [index, openid] of ids.entries()) {
    const of = found[index] ?? [];
    // An openid with no connection is reported by itself: there is no session id to list.
    if (of.length === 0) failed.push(openid);
    sessions.push(...of);
  }
  return { sessions, failed };
}

function deliver(
  directory: SessionDirectory,
  request: PushRequest,
  sessions: string[],
  via: PushVia,
): Promise<string[]> {
  if (sessions.length === 0) return Promise.resolve([]);
  return directory.pushSessions(sessions, request.body, isBinary(request), via);
}

const POST_ONLY = new Set<string>([
  PUSH_PATHS.push,
  PUSH_PATHS.groupPush,
  PUSH_PATHS.groupJoin,
  PUSH_PATHS.groupLeave,
  PUSH_PATHS.livePush,
  PUSH_PATHS.getConnId,
]);

/** `/ws/get_conn_id`'s body, `{ service_id, env_id, token }`, each a non-empty string. */
function connIdRequest(request: PushRequest): void {
  let body: unknown;
  try {
    body = JSON.parse(request.body.toString('utf8'));
  } catch {
    body = undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw platformError(
      'PLATFORM_PARAM_ERROR',
      'the body must be JSON such as { "service_id": "…", "env_id": "…", "token": "…" }',
    );
  for (const name of ['service_id', 'env_id', 'token']) {
    const value = (body as Record<string, unknown>)[name];
    if (typeof value !== 'string' || value.trim() === '')
      throw platformError(
        'PLATFORM_PARAM_ERROR',
        `${name} must be a non-empty string, got ${JSON.stringify(value ?? null)}`,
      );
  }
}

async function answer(gateway: Gateway, request: PushRequest, path: string): Promise<PushAnswer> {
  const { directory } = gateway;
  switch (path) {
    case PUSH_PATHS.push:
    case PUSH_PATHS.livePush: {
      const live = path === PUSH_PATHS.livePush;
      const { kind, ids } = targets(request, !live);
      const { sessions, failed } = await resolve(directory, kind, ids);
      failed.push(...(await deliver(directory, request, sessions, live ? 'live' : kind)));
      return ok({ failed_session_id_list: failed });
    }
    case PUSH_PATHS.groupPush: {
      const { name, value } = group(request);
      await directory.pushGroup(name, value, request.body, isBinary(request));
      return ok('');
    }
    case PUSH_PATHS.groupJoin:
    case PUSH_PATHS.groupLeave: {
      const { name, value } = group(request);
      const { kind, ids } = targets(request, true);
      const { sessions, failed } = await resolve(directory, kind, ids);
      const action = path === PUSH_PATHS.groupJoin ? 'join' : 'leave';
      if (sessions.length > 0) failed.push(...(await directory.grouped(action, sessions, name, value)));
      return ok({ failed_session_id_list: failed });
    }
    case PUSH_PATHS.getConnId: {
      connIdRequest(request);
      // `data` is a JSON string, as the platform answers it.
      return ok(JSON.stringify({ conn_id: await directory.issueConnId() }));
    }
    case PUSH_PATHS.queryInfo: {
      const { kind, ids } = targets(request, true);
      const data: Record<string, unknown> = {};
      const { sessions } = await resolve(directory, kind, ids);
      const infos = await Promise.all(sessions.map((id) => directory.query(id)));
      for (const [index, id] of sessions.entries()) {
        const info = infos[index];
        if (info === undefined) continue;
        data[id] = {
          AppID: gateway.identity.appid,
          ServiceID: gateway.identity.serviceId,
          EnvID: gateway.identity.envId,
          BackendPath: info.path,
          SessionID: id,
          OpenID: info.openid,
        };
      }
      return ok(data);
    }
    case PUSH_PATHS.groupQueryInfo: {
      const { name, value } = group(request);
      const members = await directory.groupMembers(name, value);
      const infos = await Promise.all(members.map((id) => directory.query(id)));
      const openids = [...new Set(infos.map((info) => info?.openid ?? ''))].filter((o) => o !== '');
      return ok({ sessionId_list: members, openId_list: openids });
    }
    default:
      throw platformError('PLATFORM_WS_NOT_FOUND', path, Object.values(PUSH_PATHS).join(', '));
  }
}

/**
 * Answers one call of the push API.
 * @example await handlePush(gateway, { method: 'POST', path: '/ws/push_data', headers: { 'x-tt-ws-openids': '["ann"]' }, body })
 */
export async function handlePush(gateway: Gateway, request: PushRequest): Promise<PushAnswer> {
  const path = (request.path.split('?')[0] ?? '').replace(/\/+$/, '') || '/';
  try {
    if (POST_ONLY.has(path) && request.method.toUpperCase() !== 'POST')
      throw platformError('PLATFORM_METHOD_NOT_ALLOWED', request.method);
    return await answer(gateway, request, path);
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    return { status: error.status, body: failure(error.errNo, error.message) };
  }
}
