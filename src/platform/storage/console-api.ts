/**
 * The console's storage API, on the dev server under `<CLOUDFN_PREFIX>/api/storage` (the Storage panel's
 * calls; the shapes are protocol.ts):
 *
 * | call | answer |
 * |---|---|
 * | `GET <CLOUDFN_PREFIX>/api/storage[?bucket=…&prefix=…]` | `StorageView`: the buckets, one bucket's objects and folders under a prefix |
 * | `GET …/storage/object?bucket=…&key=…` | the object's bytes, as an attachment |
 * | `PUT …/storage/object?bucket=…&key=…`, the bytes as the body | `{ key, size, etag }` |
 * | `DELETE …/storage/object?bucket=…&key=…` | `{ deleted: key }` |
 * | `POST …/storage/presign` `{ bucket, key, expires? }` | `PresignAnswer`: a presigned GET URL of the local TOS |
 * | `POST …/storage/buckets` `{ name }` | `{ created: name }` |
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CLOUDFN_PREFIX } from '../../../runtime/options.js';
import type { RouteHandler } from '../../../runtime/serve/extension.js';
import { readBodyUpTo, sendJson } from '../../../runtime/serve/hook-io.js';
import { platformError } from '../errors.js';
import { answerFailure } from './answer-failure.js';
import type { ObjectStore } from './object-store.js';
import type { PresignAnswer, StorageView } from './protocol.js';

/** What the API needs beside the store. */
export interface StorageConsoleOptions {
  store: ObjectStore;
  /** The bucket `uploadFile` writes to. */
  defaultBucket: string;
  /** A presigned GET URL of an object that lives `expiresS` seconds. */
  presignGet(bucket: string, key: string, expiresS: number): string;
}

/** The most objects one listing shows. */
const PAGE = 200;
/** How long a presigned URL of the panel lives unless asked: one hour. */
const DEFAULT_EXPIRES_S = 3600;
/** The most, as TOS allows: seven days. */
const MAX_EXPIRES_S = 604_800;
const MAX_JSON_BODY = 64 * 1024;

const bad = (detail: string) => platformError('PLATFORM_FILES_BAD_REQUEST', 'the storage panel', detail);

function required(query: URLSearchParams, name: string): string {
  const value = query.get(name);
  if (value === null || value === '') throw bad(`${name} is required, e.g. ?bucket=cloudfn-dev&key=a.png`);
  return value;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const body = await readBodyUpTo(req, MAX_JSON_BODY);
  if (body === undefined) throw bad(`the body is over ${MAX_JSON_BODY} bytes`);
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Refused below, in the same words.
  }
  throw bad('the body must be a JSON object');
}

/** The `filename*` of a Content-Disposition (RFC 6266): the key's last segment, percent-encoded. */
function attachment(key: string): string {
  const name = key.slice(key.lastIndexOf('/') + 1) || 'object';
  return `attachment; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * The handler of `<CLOUDFN_PREFIX>/api/storage`, for an extension's `routes`.
 * @example routes: () => ({ 'api/storage': storageConsoleRoute({ store, defaultBucket, presignGet }) })
 */
export function storageConsoleRoute(options: StorageConsoleOptions): RouteHandler {
  const { store } = options;

  const view = async (query: URLSearchParams): Promise<StorageView> => {
    const buckets = (await store.listBuckets()).map((b) => ({ name: b.name }));
    const bucket = query.get('bucket');
    if (bucket === null || bucket === '') return { dir: store.dir, defaultBucket: options.defaultBucket, buckets };
    const prefix = query.get('prefix') ?? '';
    const page = await store.listObjects(bucket, { prefix, delimiter: '/', maxKeys: PAGE });
    return {
      dir: store.dir,
      defaultBucket: options.defaultBucket,
      buckets,
      listing: {
        bucket,
        prefix,
        prefixes: [...page.commonPrefixes],
        objects: page.objects.map((o) => ({
          key: o.key,
          size: o.size,
          etag: o.etag,
          lastModified: o.lastModified.toISOString(),
          contentType: o.contentType,
        })),
        truncated: page.truncated,
      },
    };
  };

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const method = req.method ?? 'GET';
    const path = url.pathname.replace(/\/+$/, '');
    const query = url.searchParams;
    if (path === '' && (method === 'GET' || method === 'HEAD')) {
      sendJson(res, 200, await view(query), { head: method === 'HEAD' });
      return;
    }
    if (path === '/object') {
      const bucket = required(query, 'bucket');
      const key = required(query, 'key');
      if (method === 'GET') {
        const { info, body } = await store.getObject(bucket, key);
        res.writeHead(200, {
          'content-type': info.contentType || 'application/octet-stream',
          'content-length': info.size,
          'content-disposition': attachment(key),
          etag: info.etag,
          'cache-control': 'no-store',
        });
        body.on('error', () => res.destroy());
        body.pipe(res);
        return;
      }
      if (method === 'PUT') {
        const type = req.headers['content-type'];
        const info = await store.putObject(bucket, key, req, type === undefined ? {} : { contentType: type });
        sendJson(res, 200, { key: info.key, size: info.size, etag: info.etag });
        return;
      }
      if (method === 'DELETE') {
        await store.headObject(bucket, key);
        await store.deleteObject(bucket, key);
        sendJson(res, 200, { deleted: key });
        return;
      }
    }
    if (path === '/presign' && method === 'POST') {
      const body = await readJson(req);
      const { bucket, key } = body;
      const expires = body['expires'] ?? DEFAULT_EXPIRES_S;
      if (typeof bucket !== 'string' || bucket === '' || typeof key !== 'string' || key === '')
        throw bad(`presign takes { "bucket": "…", "key": "…" }, got ${JSON.stringify(body)}`);
      if (!Number.isInteger(expires) || (expires as number) < 1 || (expires as number) > MAX_EXPIRES_S)
        throw bad(
          `expires must be a whole number of seconds from 1 to ${MAX_EXPIRES_S}, got ${JSON.stringify(expires)}`,
        );
      await store.headObject(bucket, key);
      const answer: PresignAnswer = {
        url: options.presignGet(bucket, key, expires as number),
        expires: expires as number,
      };
      sendJson(res, 200, answer);
      return;
    }
    if (path === '/buckets' && method === 'POST') {
      const { name } = await readJson(req);
      if (typeof name !== 'string') throw bad(`buckets takes { "name": "…" }, got name ${JSON.stringify(name)}`);
      await store.createBucket(name);
      sendJson(res, 200, { created: name });
      return;
    }
    throw platformError('PLATFORM_FILES_API_NOT_FOUND', method, `${CLOUDFN_PREFIX}/api/storage${url.pathname}`);
  };

  return (req, res, path) => {
    route(req, res, new URL(path, 'http://storage.local')).catch((error: unknown) => answerFailure(res, error));
  };
}
