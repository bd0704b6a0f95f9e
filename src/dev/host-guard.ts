/**
 * Who may call a local server (`cloudfn dev`, each service of a session, `cloudfn platform`):
 * the policy of the check the server runs first on every request and upgrade
 * (runtime/serve/http-server.ts's `RequestGuard`), as Vite and webpack-dev-server check theirs.
 *
 * - **Host**: a loopback name (`localhost`, `*.localhost`, `127.x.y.z`, `[::1]`), the address
 *   it listens on (every address of the machine when that is `0.0.0.0` or `::`), or a name of
 *   `allowedHosts`; anything else is DNS rebinding until shown otherwise, and gets 403.
 *   `allowedHosts: true` turns this off.
 * - **Origin of a write** to the paths `writes` names (the console API and the dev routes): a
 *   request with an `Origin` must come from the server's own pages (the origin of its `Host`,
 *   or a loopback name on its port); the paths `json` names also need a JSON body, which a
 *   page of another site cannot send without asking first. No `Origin` (curl, the CLI) passes.
 * - **Origin of an upgrade** (the gateway's WebSocket): no `Origin`, a loopback page, the
 *   server's own pages, or a page of a name `allowedHosts` lists (`true` lists none).
 */
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import { networkInterfaces } from 'node:os';
import type { Duplex } from 'node:stream';
import type { CloudfnError } from '../../runtime/errors.js';
import { classifyHost } from '../../runtime/intranet/hosts.js';
import { errorBody } from '../../runtime/request/error-body.js';
import { generateLogid } from '../../runtime/log/logid.js';
import type { RequestGuard } from '../../runtime/serve/http-server.js';
import { sendJsonError } from '../../runtime/serve/hook-io.js';
import { createDevError } from './errors.js';

/** What the policy of one server reads. */
export interface HostGuardOptions {
  /** The address it listens on (`--host`). */
  host: string;
  /** The names answered besides its own, or `true` for any (the `allowedHosts` option). */
  allowedHosts: readonly string[] | true;
  /** How the setting reads in messages, e.g. `allowedHosts (cloudfn.config.json) or CLOUDFN_ALLOWED_HOSTS`. */
  setting: string;
  /** Whether the paths of a request are the ones whose writes must come from the server's own pages. */
  writes: (path: string) => boolean;
  /** Whether a write to the path must carry a JSON body. @default none */
  json?: (path: string) => boolean;
  /**
   * Answer the platform's intranet hosts (`ws-push…`, `…inner-call…`): the dev server, which
   * the intranet hook sends them to with their `Host` kept. @default false
   */
  intranet?: boolean;
}

/** The setting as `cloudfn dev` names it. */
export const DEV_HOSTS_SETTING = 'allowedHosts in cloudfn.config.json or CLOUDFN_ALLOWED_HOSTS';

/** The methods that only read. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether `hostname` (as a URL or a `Host` header spells it, lower-case, no port) is a name of
 * this machine a browser never asks DNS for: `localhost` and its subdomains, `127.x.y.z`, `[::1]`.
 * @example isLoopbackName('127.0.0.1') // true
 * @example isLoopbackName('localhost.example.com') // false
 */
export function isLoopbackName(hostname: string): boolean {
  if (hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]') return true;
  const parts = hostname.split('.');
  return (
    parts.length === 4 && parts[0] === '127' && parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) < 256)
  );
}

/** The host name of a `Host` header or a URL's host: lower-case, without port or final dot. */
function hostnameOf(host: string): string {
  const lower = host.trim().toLowerCase();
  const name = lower.startsWith('[') ? lower.slice(0, lower.indexOf(']') + 1) : lower.replace(/:\d*$/, '');
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** An address as a Host names it: an IPv6 one in brackets. */
function asHostname(address: string): string {
  return address.includes(':') ? `[${address.toLowerCase()}]` : address.toLowerCase();
}

/** The names the server listens on: its `--host`, or every address of the machine for a wildcard. */
function listenNames(host: string): Set<string> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare !== '0.0.0.0' && bare !== '::') return new Set([hostnameOf(asHostname(bare))]);
  const names = new Set<string>();
  for (const list of Object.values(networkInterfaces()))
    for (const info of list ?? []) names.add(asHostname(info.address.replace(/%.*$/, '')));
  return names;
}

/** The origin's URL when it is an http(s) origin, else undefined (`null`, a file page, junk). */
function originUrl(origin: string): URL | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Writes a refusal on the socket of an upgrade, in the JSON error shape, and closes it. */
function refuseUpgrade(socket: Duplex, error: CloudfnError): void {
  const body = errorBody(error.code, error.message, generateLogid());
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * The guard of one local server.
 * @example
 * serve(functions, { guard: (app) => hostGuard({ host: app.options.host, allowedHosts: app.options.allowedHosts, setting: DEV_HOSTS_SETTING, writes: isConsolePath }) })
 */
export function hostGuard(options: HostGuardOptions): RequestGuard {
  const any = options.allowedHosts === true;
  const named = new Set([...listenNames(options.host), ...(options.allowedHosts === true ? [] : options.allowedHosts)]);
  /** A loopback name or one named (the listening address, allowedHosts); `true` is not a name. */
  const isNamed = (hostname: string): boolean => {
    if (isLoopbackName(hostname) || named.has(hostname)) return true;
    for (const name of named)
      if (name.startsWith('.') && (hostname.endsWith(name) || hostname === name.slice(1))) return true;
    return false;
  };
  /** The refusal of a request's Host, or undefined. No Host passes: the pipeline answers it 400. */
  const hostRefusal = (req: IncomingMessage): CloudfnError | undefined => {
    const host = req.headers.host;
    if (host === undefined || host === '') return undefined;
    const hostname = hostnameOf(host);
    if (any || isNamed(hostname) || (options.intranet === true && classifyHost(hostname) !== undefined))
      return undefined;
    return createDevError('CLOUDFN_DEV_HOST_NOT_ALLOWED', host, hostname, options.setting);
  };
  /** Whether the page of `origin` is one of this server's: its Host's origin, or a loopback name on its port. */
  const ownOrigin = (req: IncomingMessage, url: URL): boolean => {
    const host = req.headers.host;
    if (host !== undefined && url.host === hostnameOf(host) + portOf(host, url.protocol)) return true;
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    return isLoopbackName(url.hostname) && port === req.socket.localPort;
  };
  return {
    request(req: IncomingMessage, res: ServerResponse): boolean {
      const refused = hostRefusal(req) ?? writeRefusal(req);
      if (refused === undefined) return false;
      sendJsonError(res, refused);
      return true;
    },
    upgrade(req: IncomingMessage, socket: Duplex): boolean {
      let refused = hostRefusal(req);
      const origin = req.headers.origin;
      if (refused === undefined && origin !== undefined) {
        const url = originUrl(origin);
        if (url === undefined || !(isNamed(url.hostname) || ownOrigin(req, url)))
          refused = createDevError(
            'CLOUDFN_DEV_WS_ORIGIN_NOT_ALLOWED',
            origin,
            url?.hostname ?? origin,
            options.setting,
          );
      }
      if (refused === undefined) return false;
      refuseUpgrade(socket, refused);
      return true;
    },
  };

  function writeRefusal(req: IncomingMessage): CloudfnError | undefined {
    const method = req.method ?? 'GET';
    if (READS.has(method)) return undefined;
    const path = (req.url ?? '/').split('?')[0]!;
    if (!options.writes(path)) return undefined;
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const url = originUrl(origin);
      if (url === undefined || !ownOrigin(req, url))
        return createDevError('CLOUDFN_DEV_ORIGIN_NOT_ALLOWED', method, path, origin);
    }
    if (options.json?.(path) === true && hasBody(req)) {
      const type = req.headers['content-type'];
      if (!isJsonType(type)) return createDevError('CLOUDFN_DEV_JSON_REQUIRED', method, path, type ?? 'none');
    }
    return undefined;
  }
}

/** `:port` as a URL's host keeps it: none for the scheme's default port. */
function portOf(host: string, protocol: string): string {
  const match = /:(\d+)$/.exec(host.trim());
  if (match === null) return '';
  const port = Number(match[1]);
  return (protocol === 'http:' && port === 80) || (protocol === 'https:' && port === 443) ? '' : `:${port}`;
}

/** Whether a request declares a body. */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** `application/json`, or a `+json` type, with any parameters. */
function isJsonType(type: string | undefined): boolean {
  if (type === undefined) return false;
  const essence = type.split(';')[0]!.trim().toLowerCase();
  return essence === 'application/json' || (essence.startsWith('application/') && essence.endsWith('+json'));
}
