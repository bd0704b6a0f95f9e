/**
 * What passes between `createCloud` and the gateway of `cloudfn dev`: the headers that address
 * a service, and the platform's gateway envelope (its 公共错误码 page: HTTP 200, the failure
 * carried by `status_code` and `status_message`, also as `X-Status-Code`, `X-Status-Message` and
 * `X-Status-Message-Base64` on a custom domain). Both sides read this one file: the dev gateway
 * (src/platform/services/gateway.ts) writes the envelope, the client reads it.
 */
import { CLIENT_GATEWAY_HEADER } from '../../runtime/intranet/hosts.js';

/** The service a call is for (`tt.createCloud`'s `serviceID`); the dev gateway routes by it. */
export const SERVICE_HEADER = CLIENT_GATEWAY_HEADER;
/** The environment a call is for (`envID`); sent, not checked (a dev session has one environment). */
export const ENV_HEADER = 'x-cloudfn-env';

/** The gateway's failure codes that `cloudfn dev` reproduces, with the platform's messages. */
export const GATEWAY_CODES = {
  /** 未找到开发者后端服务: no such service. */
  serviceNotFound: 13005,
  /** request body limited. */
  bodyLimited: 14021,
  /** request qps limited. */
  qpsLimited: 14010,
  /** debug request qps limited (a test request). */
  debugQpsLimited: 14030,
} as const;

/** The headers of a gateway failure, lower case. */
export const STATUS_CODE_HEADER = 'x-status-code';
export const STATUS_MESSAGE_HEADER = 'x-status-message';
export const STATUS_MESSAGE_BASE64_HEADER = 'x-status-message-base64';
/** The gateway's log id (the platform's), and the one cloudfn's servers answer. */
export const TT_LOGID_HEADER = 'x-tt-logid';
export const PLATFORM_LOGID_HEADER = 'x-platform-logid';

/** The body of a gateway failure. `logid` is cloudfn's addition, so a curl shows it too. */
export interface GatewayEnvelope {
  status_code: number;
  status_message: string;
  logid: string;
}

/**
 * The envelope a response carries, when the gateway answered it: a 200 whose `x-status-code`
 * is a number other than 0. The body's fields win over the headers when both are there.
 * @example gatewayFailure(200, { 'x-status-code': '13005' }, { status_code: 13005, status_message: 'service not found', logid: 'x' })
 */
export function gatewayFailure(
  statusCode: number,
  header: Readonly<Record<string, string>>,
  data: unknown,
): GatewayEnvelope | undefined {
  if (statusCode !== 200) return undefined;
  const code = Number(header[STATUS_CODE_HEADER]);
  if (!Number.isInteger(code) || code === 0) return undefined;
  const body = (typeof data === 'object' && data !== null ? data : {}) as Partial<GatewayEnvelope>;
  const encoded = header[STATUS_MESSAGE_BASE64_HEADER];
  const message =
    typeof body.status_message === 'string'
      ? body.status_message
      : encoded !== undefined
        ? decodeBase64(encoded)
        : (header[STATUS_MESSAGE_HEADER] ?? '');
  return {
    status_code: typeof body.status_code === 'number' ? body.status_code : code,
    status_message: message,
    logid:
      typeof body.logid === 'string' ? body.logid : (header[TT_LOGID_HEADER] ?? header[PLATFORM_LOGID_HEADER] ?? ''),
  };
}

/** Buffer, not atob: Node 14 (the function service) has no atob. */
function decodeBase64(text: string): string {
  return Buffer.from(text, 'base64').toString('utf8');
}
