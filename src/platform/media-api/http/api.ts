/**
 * Answers the `/api/cloud_voc/<operation>` requests: injected faults, the access-token,
 * the request signature (platform contract, Signing), the rate limit, validation, then the
 * operation's handler, with a signed answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SignatureError, verifyRequest } from '../../../sign/index.js';
import type { Operation } from '../../../media/types.js';
import { validateRequest } from '../../../media/validate.js';
import type { PlatformContext } from '../context.js';
import { platformError } from '../../errors.js';
import { drawFaults } from './faults.js';
import { sleep } from '../jobs/job-queue.js';
import { operations, type Caller } from './operations/index.js';
import { parseJson, readApiBody, sendSigned } from './respond.js';

/** Request header of the request signature (platform contract, Signing). */
export const AUTHORIZATION_HEADER = 'platform-authorization';

/**
 * Answers `POST /api/cloud_voc/<operation>`, in this order: faults (latency, 500), the
 * access-token, the request signature, the rate limit, the JSON body, the validation of
 * docs/platform-contract.md#media-api, then the operation. Throws a `PlatformError` for the
 * server to send.
 * @example await handleOperation(ctx, req, res, 'get_video_list', logId)
 */
export async function handleOperation(
  ctx: PlatformContext,
  req: IncomingMessage,
  res: ServerResponse,
  operation: Operation,
  logId: string,
): Promise<void> {
  const raw = await readApiBody(req, ctx.options.maxBodyBytes);
  const faults = drawFaults(ctx.options.faults, ctx.options.random);
  if (faults.delayMs > 0) await sleep(faults.delayMs);
  if (faults.error500) throw platformError('PLATFORM_INTERNAL', 'injected by --faults 500');
  const header = req.headers['access-token'];
  const token = ctx.tokens.check(Array.isArray(header) ? header[0] : header);
  if (faults.expiredToken) throw platformError('PLATFORM_TOKEN_EXPIRED', new Date(ctx.options.now()).toISOString());
  const appid = await checkSignature(ctx, req, raw, token.clientKey);
  if (faults.rateLimit || !ctx.limiter.take(operation, appid)) {
    throw platformError('PLATFORM_RATE_LIMITED', operation, ctx.limiter.limitOf(operation) ?? 0);
  }
  const body = parseJson(raw);
  const issue = validateRequest(operation, body, { now: ctx.options.now() });
  if (issue !== undefined) throw platformError('PLATFORM_PARAM_ERROR', issue.message);
  const caller: Caller = { appid, host: req.headers.host ?? ctx.listenHost };
  const result = await operations[operation](ctx, body as Record<string, unknown>, caller);
  sendSigned(ctx, res, { err_no: 0, err_msg: 'success', log_id: logId, ...result }, faults.badSignature, 200, appid);
}

/**
 * The platform contract's Signing section on the platform's side. A request with
 * `Platform-Authorization` is verified (one-hour window, replay refused) and then acts for the
 * signed appid; a request without it is refused when the token's client_key has an app public
 * key registered.
 */
async function checkSignature(
  ctx: PlatformContext,
  req: IncomingMessage,
  raw: Buffer,
  clientKey: string,
): Promise<string> {
  const authorization = req.headers[AUTHORIZATION_HEADER];
  if (authorization === undefined) {
    if (ctx.appKeys.hasKeys(clientKey)) throw platformError('PLATFORM_SIGNATURE_MISSING', clientKey);
    return clientKey;
  }
  try {
    const verified = await verifyRequest({
      authorization: Array.isArray(authorization) ? authorization[0] : authorization,
      method: req.method ?? 'POST',
      url: req.url ?? '/',
      body: raw,
      publicKeys: (appid, keyVersion) => ctx.appKeys.resolve(appid, keyVersion),
      now: ctx.options.now,
      maxAgeSeconds: 3600,
      nonceStore: ctx.nonces,
    });
    return verified.appid;
  } catch (error) {
    if (error instanceof SignatureError)
      throw platformError('PLATFORM_SIGNATURE_INVALID', `${error.code}: ${error.message}`);
    throw error;
  }
}
