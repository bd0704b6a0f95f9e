/**
 * The protocol checks of a WebSocket upgrade (RFC 6455 4.2.1), made before the gateway calls
 * the function's connect: a request the socket library would refuse (not a GET, no
 * `Upgrade: websocket`, a malformed `Sec-WebSocket-Key`, a version other than 13 or 8, a
 * malformed `Sec-WebSocket-Protocol`) is answered here, so connect is called only for an
 * upgrade that will be accepted and no session is left without its disconnect.
 */
import type { IncomingMessage } from 'node:http';

/** Why an upgrade is refused: the HTTP status, the message and any header the answer carries. */
export interface UpgradeProblem {
  status: 400 | 405;
  message: string;
  headers?: Record<string, string>;
}

/** A key is 16 random bytes in base64: 22 characters and `==` (the rule the `ws` server applies). */
const KEY = /^[+/0-9A-Za-z]{22}==$/;
/** A subprotocol is an RFC 7230 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function one(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The problem of an upgrade request, or undefined when the socket library will accept it.
 * @example upgradeProblem(req) // { status: 405, message: 'a WebSocket upgrade must be a GET, got POST' }
 */
export function upgradeProblem(req: IncomingMessage): UpgradeProblem | undefined {
  const method = req.method ?? '';
  if (method !== 'GET') return { status: 405, message: `a WebSocket upgrade must be a GET, got ${method}` };
  const upgrade = one(req, 'upgrade');
  if (upgrade?.toLowerCase() !== 'websocket')
    return { status: 400, message: `the Upgrade header must be "websocket", got ${JSON.stringify(upgrade ?? null)}` };
  const key = one(req, 'sec-websocket-key');
  if (key === undefined || !KEY.test(key))
    return {
      status: 400,
      message: `Sec-WebSocket-Key must be 16 random bytes in base64 (24 characters ending in ==), got ${JSON.stringify(key ?? null)}`,
    };
  const version = one(req, 'sec-websocket-version');
  if (version !== '13' && version !== '8')
    return {
      status: 400,
      message: `Sec-WebSocket-Version must be 13, got ${JSON.stringify(version ?? null)}`,
      headers: { 'sec-websocket-version': '13, 8' },
    };
  const protocols = one(req, 'sec-websocket-protocol');
  if (protocols !== undefined) {
    const names = protocols.split(',').map((p) => p.trim());
    if (names.some((name) => !TOKEN.test(name)) || new Set(names).size !== names.length)
      return {
        status: 400,
        message: `Sec-WebSocket-Protocol must be distinct tokens separated by commas, got ${JSON.stringify(protocols)}`,
      };
  }
  return undefined;
}
