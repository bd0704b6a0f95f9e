/**
 * TOS's HTTP API over the object store: one request in, its signature checked
 * (signature.ts), the operation picked by method, bucket, key and query as the SDK sends them
 * (operations.ts), and every refusal answered in TOS's shape: a JSON body
 * `{ Code, Message, RequestId, HostId, Resource }` with `x-tos-request-id`, which the SDK needs
 * to throw `TosServerError` (a HEAD answer has the headers alone, as on TOS).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { classifyHost } from '../../../runtime/intranet/hosts.js';
import { type StorageErrorCode, StorageError, storageError } from './errors.js';
import { runOperation } from './operations.js';
import { verifySignature } from './signature.js';
import type { TosAnswer, TosHttpOptions, TosTarget } from './tos-call.js';

export type { TosHttpOptions, TosTarget } from './tos-call.js';

/** The TOS server's name in the `Server` header. */
const SERVER = 'TosServer';

/**
 * Makes the handler of TOS requests (the dev server's host handler and its `tos` route call it).
 * @example const handle = tosHandler({ store, keys, region: 'cn-beijing', warn }); handle(req, res, { host, path, query })
 */
export function tosHandler(
  options: TosHttpOptions,
): (req: IncomingMessage, res: ServerResponse, target: TosTarget) => void {
  return (req, res, target) => {
    const requestId = randomBytes(12).toString('hex');
    const method = (req.method ?? 'GET').toUpperCase();
    handle(options, req, target, requestId, method)
      .then((answer) => send(res, method, requestId, answer))
      .catch((error: unknown) => {
        const failure =
          error instanceof StorageError
            ? error
            : storageError('InternalError', (error as Error)?.message ?? String(error));
        if (!(error instanceof StorageError))
          options.warn(`local TOS: ${method} ${target.host}${target.path}: ${(error as Error)?.stack ?? error}`);
        sendError(res, method, requestId, target, failure);
      });
  };
}

async function handle(
  options: TosHttpOptions,
  req: IncomingMessage,
  target: TosTarget,
  requestId: string,
  method: string,
): Promise<TosAnswer> {
  const host = target.host.toLowerCase().replace(/:\d+$/, '');
  const named = classifyHost(host);
  if (named?.kind !== 'tos')
    throw storageError(
      'InvalidArgument',
      'Host',
      JSON.stringify(target.host),
      'send TOS requests to tos-<region>.volces.com or <bucket>.tos-<region>.volces.com',
    );

  const refusal = verifySignature(
    { method, path: target.path, query: target.query, headers: { ...req.headers, host: target.host } },
    options.keys,
  );
  if (refusal !== undefined) {
    options.warn(`local TOS refused ${method} ${target.host}${target.path}: ${refusal.code}: ${refusal.log}`);
    const error = storageError(refusal.code, refusal.message);
    Object.assign(error, {
      extra: {
        ...(refusal.canonicalRequest === undefined ? {} : { CanonicalRequest: refusal.canonicalRequest }),
        ...(refusal.stringToSign === undefined ? {} : { StringToSign: refusal.stringToSign }),
      },
    });
    throw error;
  }

  // The bucket from the host (virtual-hosted style), else the path's first segment (path style).
  let bucket = named.bucket;
  let rawKey = target.path.slice(1);
  if (bucket === undefined && rawKey !== '') {
    const at = rawKey.indexOf('/');
    bucket = decodeSegment(at === -1 ? rawKey : rawKey.slice(0, at));
    rawKey = at === -1 ? '' : rawKey.slice(at + 1);
  }
  const key = rawKey === '' ? undefined : decodeSegment(rawKey);
  const query = new URLSearchParams(target.query);
  return runOperation(options, { req, method, bucket, key, query, host, requestId });
}

function decodeSegment(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw storageError(
      'InvalidArgument',
      'the path',
      JSON.stringify(text),
      'percent-encode the key as encodeURIComponent does',
    );
  }
}

function commonHeaders(requestId: string): Record<string, string> {
  return {
    server: SERVER,
    'x-tos-request-id': requestId,
    'x-tos-id-2': `${requestId}-local`,
    date: new Date().toUTCString(),
  };
}

function send(res: ServerResponse, method: string, requestId: string, answer: TosAnswer): void {
  const headers: Record<string, string | number> = { ...commonHeaders(requestId), ...answer.headers };
  if (answer.json !== undefined) {
    const body = Buffer.from(JSON.stringify(answer.json));
    headers['content-type'] = 'application/json';
    headers['content-length'] = body.length;
    res.writeHead(answer.status, headers);
    res.end(method === 'HEAD' ? undefined : body);
    return;
  }
  if (answer.stream !== undefined && method !== 'HEAD') {
    res.writeHead(answer.status, headers);
    const stream = answer.stream as NodeJS.ReadableStream & { destroy?(): void };
    stream.on('error', () => res.destroy());
    res.on('close', () => stream.destroy?.());
    stream.pipe(res);
    return;
  }
  (answer.stream as (NodeJS.ReadableStream & { destroy?(): void }) | undefined)?.destroy?.();
  if (headers['content-length'] === undefined) headers['content-length'] = 0;
  res.writeHead(answer.status, headers);
  res.end();
}

function sendError(
  res: ServerResponse,
  method: string,
  requestId: string,
  target: TosTarget,
  error: StorageError,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const code: StorageErrorCode = error.code;
  const body = Buffer.from(
    JSON.stringify({
      Code: code,
      Message: error.message,
      RequestId: requestId,
      HostId: target.host,
      Resource: target.path,
      ...((error as StorageError & { extra?: Record<string, string> }).extra ?? {}),
    }),
  );
  res.writeHead(error.status, {
    ...commonHeaders(requestId),
    'x-tos-ec': code,
    'content-type': 'application/json',
    'content-length': body.length,
  });
  res.end(method === 'HEAD' ? undefined : body);
}
