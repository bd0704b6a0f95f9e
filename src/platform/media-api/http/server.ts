/**
 * The emulator's HTTP request listener: routes to the token interface, the operations, the
 * media links, the sample video and the public key; sets `x-platform-logid` on every answer
 * and logs each request.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_PREFIX } from '../../../media/types.js';
import { isOperation } from '../../../media/validate.js';
import { handleOperation } from './api.js';
import type { PlatformContext } from '../context.js';
import { PlatformError, platformError } from '../../errors.js';
import { newLogId } from '../state/ids.js';
import { MEDIA_PREFIX } from './media-links.js';
import { serveMedia } from './media-server.js';
import { LOGID_HEADER, parseJson, readApiBody, sendError, sendSigned } from './respond.js';
import { SAMPLE_PATH, sampleVideo } from './samples.js';

/** Path of the client-token interface (platform contract, Media API). */
export const TOKEN_PATH = '/oauth/client_token/';
/** Where the emulator also publishes its public key, for tools that fetch it. */
export const PUBLIC_KEY_PATH = '/platform_public_key.pem';

/**
 * The emulator's request listener: token, operations, media links and the public key, with
 * `x-platform-logid` on every answer and one log line per request.
 * @example http.createServer(createRequestListener(ctx, publicKeyPem))
 */
export function createRequestListener(ctx: PlatformContext, publicKeyPem: string) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    const logId = newLogId(new Date(ctx.options.now()));
    res.setHeader(LOGID_HEADER, logId);
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    res.on('finish', () => {
      if (!path.startsWith(MEDIA_PREFIX) || res.statusCode >= 400) {
        ctx.options.log(
          `${req.method ?? '?'} ${path} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms ${logId}`,
        );
      }
    });
    route(ctx, req, res, path, logId, publicKeyPem).catch((error: unknown) => {
      const known =
        error instanceof PlatformError
          ? error
          : platformError('PLATFORM_INTERNAL', error instanceof Error ? error.message : String(error));
      if (!(error instanceof PlatformError))
        ctx.options.log(
          `internal error ${logId}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
      sendError(res, logId, known);
    });
  };
}

async function route(
  ctx: PlatformContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  logId: string,
  publicKeyPem: string,
): Promise<void> {
  if (path.startsWith(MEDIA_PREFIX)) return serveMedia(ctx, req, res, path, logId);
  if (path === PUBLIC_KEY_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
    res.writeHead(200, { 'content-type': 'application/x-pem-file' });
    res.end(req.method === 'HEAD' ? undefined : publicKeyPem);
    return;
  }
  if (path === SAMPLE_PATH && (req.method === 'GET' || req.method === 'HEAD')) return serveSample(ctx, req, res);
  const isToken = path === TOKEN_PATH || path === TOKEN_PATH.slice(0, -1);
  const operation = path.startsWith(API_PREFIX) ? path.slice(API_PREFIX.length).replace(/\/$/, '') : undefined;
  if (!isToken && (operation === undefined || !isOperation(operation))) throw platformError('PLATFORM_NOT_FOUND', path);
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    throw platformError('PLATFORM_METHOD_NOT_ALLOWED', req.method ?? '');
  }
  if (operation !== undefined && isOperation(operation)) return handleOperation(ctx, req, res, operation, logId);
  // The token interface needs no signature (platform contract, Media API: "needs no user
  // authorization"); a Platform-Authorization header sent to it is ignored.
  const body = parseJson(await readApiBody(req, ctx.options.maxBodyBytes));
  const issued = ctx.tokens.issue(body);
  sendSigned(ctx, res, { err_no: 0, err_msg: 'success', log_id: logId, data: issued }, false);
}

/** The sample video, a plain file download (not a media link: it is an upload source). */
async function serveSample(ctx: PlatformContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const file = await sampleVideo(ctx.options.dataDir, ctx.tools);
  const { size } = await stat(file);
  res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': size });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(file).pipe(res);
}
