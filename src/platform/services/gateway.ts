/**
 * The platform's client gateway in front of each service of `cloudfn dev`, for the calls
 * `createCloud` addresses with `x-cloudfn-service`: a call for this service passes (under its
 * `gatewayLimits`), a call for another service of the session is passed to that service's dev
 * server, and the failures the platform's gateway answers are answered in its envelope (HTTP
 * 200, `status_code`, `status_message`, the logid): 13005 for a service the session does not
 * run, 14021 for a body over the limit, 14010 (14030 for test requests) over the QPS limit.
 * A request without the header is not a gateway call (curl, a page's own fetch, an inner call)
 * and passes untouched.
 */
import { type IncomingMessage, request as httpRequest, type ServerResponse } from 'node:http';
import { generateLogid } from '../../../runtime/log/logid.js';
import type { BeforeHook } from '../../../runtime/serve/http-server.js';
import {
  ENV_HEADER,
  GATEWAY_CODES,
  PLATFORM_LOGID_HEADER,
  SERVICE_HEADER,
  STATUS_CODE_HEADER,
  STATUS_MESSAGE_BASE64_HEADER,
  STATUS_MESSAGE_HEADER,
  TT_LOGID_HEADER,
} from '../../client/gateway-wire.js';
import type { GatewayLimits, SessionMap } from './setting.js';

/** What the gateway of one service knows. */
export interface GatewayOptions {
  /** This service's id. */
  readonly self: string;
  /** Every service of the session by id (undefined: this service alone). */
  readonly session: SessionMap | undefined;
  readonly limits: GatewayLimits;
  /** Where a refused call is told, with its logid. */
  readonly warn: (logid: string, message: string) => void;
}

/** A window of one second, as the platform counts QPS. */
const SECOND_MS = 1000;

/**
 * Answers the platform's gateway envelope: HTTP 200, the failure in the body and in the
 * custom domain's `X-Status-*` headers, the logid as the gateway's and as cloudfn's.
 */
function answerEnvelope(res: ServerResponse, code: number, message: string, logid: string): void {
  const body = JSON.stringify({ status_code: code, status_message: message, logid });
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    [STATUS_CODE_HEADER]: String(code),
    // A header value is bytes: anything outside printable ASCII is in the base64 form only.
    [STATUS_MESSAGE_HEADER]: message.replace(/[^\x20-\x7e]/g, '?'),
    [STATUS_MESSAGE_BASE64_HEADER]: Buffer.from(message).toString('base64'),
    [TT_LOGID_HEADER]: logid,
    [PLATFORM_LOGID_HEADER]: logid,
  });
  res.end(body);
}

/** Passes the call, headers and body as they came, to the service at `url`, and its answer back. */
function forward(req: IncomingMessage, res: ServerResponse, id: string, url: string, options: GatewayOptions): void {
  const target = new URL(url);
  const outgoing = httpRequest(
    {
      host: target.hostname.replace(/^\[|\]$/g, ''),
      port: target.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    },
  );
  outgoing.on('error', (error: NodeJS.ErrnoException) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const logid = generateLogid();
    const message = `service ${id} is not answering at ${url} (${error.code ?? error.message}); is its cloudfn dev running?`;
    options.warn(logid, `gateway ${GATEWAY_CODES.serviceNotFound}: ${message}`);
    answerEnvelope(res, GATEWAY_CODES.serviceNotFound, message, logid);
  });
  req.pipe(outgoing);
}

/**
 * The gateway's hook, before routing.
 * @example gate: () => gatewayHook({ self: 'rank', session, limits, warn })
 */
export function gatewayHook(options: GatewayOptions): BeforeHook {
  const { self, session, limits } = options;
  /** The start times of the calls admitted in the last second, oldest first. */
  const recent: number[] = [];
  /** `message` is the platform's `status_message`; `detail` goes to the log line only. */
  const refuse = (res: ServerResponse, code: number, message: string, detail = ''): true => {
    const logid = generateLogid();
    options.warn(logid, `gateway ${code}: ${message}${detail}`);
    answerEnvelope(res, code, message, logid);
    return true;
  };
  return (req, res) => {
    const asked = req.headers[SERVICE_HEADER];
    if (asked === undefined) return false;
    const id = Array.isArray(asked) ? asked[0]! : asked;
    if (id !== self) {
      const url = session?.[id];
      if (url !== undefined) {
        forward(req, res, id, url, options);
        return true;
      }
      const known = Object.keys(session ?? { [self]: '' }).join(', ');
      return refuse(
        res,
        GATEWAY_CODES.serviceNotFound,
        `service not found: ${JSON.stringify(id)} is not a service of this session (${known}); pass one of them as serviceID`,
      );
    }
    // Addressed here: the headers were the gateway's business, not the function's.
    delete req.headers[SERVICE_HEADER];
    delete req.headers[ENV_HEADER];
    const length = Number(req.headers['content-length'] ?? 0);
    if (limits.maxBodySize !== undefined && length > limits.maxBodySize)
      return refuse(
        res,
        GATEWAY_CODES.bodyLimited,
        'request body limited',
        `: ${length} bytes, over gatewayLimits.maxBodySize ${limits.maxBodySize} of service ${self}`,
      );
    if (limits.qps !== undefined) {
      const now = Date.now();
      while (recent.length > 0 && recent[0]! <= now - SECOND_MS) recent.shift();
      if (recent.length >= limits.qps) {
        const code = limits.debug ? GATEWAY_CODES.debugQpsLimited : GATEWAY_CODES.qpsLimited;
        const message = limits.debug ? 'debug request qps limited' : 'request qps limited';
        return refuse(res, code, message, `: over gatewayLimits.qps ${limits.qps} of service ${self}`);
      }
      recent.push(now);
    }
    return false;
  };
}
