/**
 * How the emulator answers and reads HTTP: signed 2xx JSON, error envelopes, the body
 * reader with its size limit and the JSON parser, in PlatformError terms.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody as readRequestBody } from '../../../../runtime/body/read-body.js';
import { CloudfnError } from '../../../../runtime/errors.js';
import { signResponse } from '../../../sign/index.js';
import type { PlatformContext } from '../context.js';
import { type PlatformError, platformError } from '../../errors.js';

/**
 * The response header every answer carries (platform contract, Signing: the platform's
 * request id).
 */
export const LOGID_HEADER = 'x-platform-logid';

/**
 * Sends a 2xx JSON answer signed with the platform private key (platform contract, Signing:
 * every 2xx is signed). With `corrupt`, the signature is made over other bytes: the
 * bad-signature fault.
 * @example sendSigned(ctx, res, { err_no: 0, err_msg: 'success', log_id }, false)
 */
export function sendSigned(
  ctx: PlatformContext,
  res: ServerResponse,
  payload: unknown,
  corrupt: boolean,
  status = 200,
  appid?: string,
): void {
  const body = JSON.stringify(payload);
  const timestamp = Math.floor(ctx.options.now() / 1000);
  // Signed with the key of the mini-program the call acted for (the platform key differs per mini-program, docs/platform-contract.md).
  const headers = signResponse({ privateKey: ctx.platformKeyOf(appid), body: corrupt ? body + ' ' : body, timestamp });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/**
 * Sends an error envelope `{ err_no, err_msg, log_id, data: null }` with the code's HTTP
 * status. Errors are not 2xx, so they are not signed. A 429 also says `Retry-After: 1`.
 * @example sendError(res, logid, platformError('PLATFORM_VIDEO_NOT_EXIST', vid))
 */
export function sendError(res: ServerResponse, logId: string, error: PlatformError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ err_no: error.errNo, err_msg: error.message, log_id: logId, data: null });
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  };
  if (error.status === 429) headers['retry-after'] = 1;
  res.writeHead(error.status, headers);
  res.end(body);
}

/**
 * Reads the whole body with the runtime's reader, refusing more than `limit` bytes with
 * PLATFORM_BODY_TOO_LARGE (a declared Content-Length before reading, a chunked body as soon as
 * it passes) and a Content-Encoding it does not decode with PLATFORM_PARAM_ERROR.
 * @example const raw = await readApiBody(req, 1_048_576)
 */
export async function readApiBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  try {
    return await readRequestBody(req, limit, 'maxBodyBytes');
  } catch (error) {
    if (!(error instanceof CloudfnError)) throw error;
    throw error.code === 'CLOUDFN_BODY_TOO_LARGE'
      ? platformError('PLATFORM_BODY_TOO_LARGE', limit)
      : platformError('PLATFORM_PARAM_ERROR', error.message);
  }
}

/**
 * Parses a JSON body for an interface, as 40001 when it is not JSON.
 * @example const body = parseJson(raw)
 */
export function parseJson(raw: Buffer): unknown {
  const text = raw.toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw platformError(
      'PLATFORM_PARAM_ERROR',
      `the body is not valid JSON (${error instanceof Error ? error.message : String(error)}); send a JSON object`,
    );
  }
}
