/**
 * The push API of the platform's WebSocket gateway, served locally: one function from a request
 * (method, path, headers, body) to the platform's envelope `{ data, err_msg, err_no }`, so the
 * dev server's HTTP route, `openApiInvoke` and `cloudfn/testing` all answer alike. Bad input
 * answers `err_no` != 0 with a message naming the header and the fix (docs/gateway.md#errors).
 */
import { type Envelope, failure, success } from './envelope.js';
import { PlatformError, platformError } from '../errors.js';
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
function resolve(
  gateway: Gateway,
  kind: 'session' | 'openid',
  ids: string[],
): { sessions: string[]; failed: string[] } {
  if (kind === 'session') return { sessions: ids, failed: [] };
  const sessions: string[] = [];
  const failed: string[] = [];
  for (const openid of ids) {
    const found = gateway.sessionsOf(openid);
    // An openid with no connection is reported by itself: there is no session id to list.
    if (found.length === 0) failed.push(openid);
    sessions.push(...found);
  }
  return { sessions, failed };
}

function deliver(gateway: Gateway, request: PushRequest, sessions: string[], via: PushVia): string[] {
  const binary = isBinary(request);
  return sessions.filter((id) => !gateway.send(id, request.body, binary, via));
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

function answer(gateway: Gateway, request: PushRequest, path: string): PushAnswer {
  switch (path) {
    case PUSH_PATHS.push:
    case PUSH_PATHS.livePush: {
      const live = path === PUSH_PATHS.livePush;
      const { kind, ids } = targets(request, !live);
      const { sessions, failed } = resolve(gateway, kind, ids);
      failed.push(...deliver(gateway, request, sessions, live ? 'live' : kind));
      return ok({ failed_session_id_list: failed });
    }
    case PUSH_PATHS.groupPush: {
      const { name, value } = group(request);
      deliver(gateway, request, gateway.groupMembers(name, value), 'group');
      return ok('');
    }
    case PUSH_PATHS.groupJoin:
    case PUSH_PATHS.groupLeave: {
      const { name, value } = group(request);
      const { kind, ids } = targets(request, true);
      const { sessions, failed } = resolve(gateway, kind, ids);
      failed.push(...gateway.group(path === PUSH_PATHS.groupJoin ? 'join' : 'leave', sessions, name, value));
      return ok({ failed_session_id_list: failed });
    }
    case PUSH_PATHS.getConnId: {
      connIdRequest(request);
      // `data` is a JSON string, as the platform answers it.
      return ok(JSON.stringify({ conn_id: gateway.connIds.issue() }));
    }
    case PUSH_PATHS.queryInfo: {
      const { kind, ids } = targets(request, true);
      const data: Record<string, unknown> = {};
      for (const id of resolve(gateway, kind, ids).sessions) {
        const info = gateway.session(id);
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
      const members = gateway.groupMembers(name, value);
      const openids = [...new Set(members.map((id) => gateway.session(id)?.openid ?? ''))].filter((o) => o !== '');
      return ok({ sessionId_list: members, openId_list: openids });
    }
    default:
      throw platformError('PLATFORM_WS_NOT_FOUND', path, Object.values(PUSH_PATHS).join(', '));
  }
}

/**
 * Answers one call of the push API.
 * @example handlePush(gateway, { method: 'POST', path: '/ws/push_data', headers: { 'x-tt-ws-openids': '["ann"]' }, body })
 */
export function handlePush(gateway: Gateway, request: PushRequest): PushAnswer {
  const path = (request.path.split('?')[0] ?? '').replace(/\/+$/, '') || '/';
  try {
    if (POST_ONLY.has(path) && request.method.toUpperCase() !== 'POST')
      throw platformError('PLATFORM_METHOD_NOT_ALLOWED', request.method);
    return answer(gateway, request, path);
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    return { status: error.status, body: failure(error.errNo, error.message) };
  }
}
