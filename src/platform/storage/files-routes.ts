/**
 * The mini-program's side of the local object store, on the dev server under `<CLOUDFN_PREFIX>/files/`
 * (the routes `createCloud`'s `uploadFile`, `downloadFile`, `deleteFile` and `getTempFileURL`
 * call; their shapes are src/client/storage-wire.ts):
 *
 * | call | answer |
 * |---|---|
 * | `PUT <CLOUDFN_PREFIX>/files/upload?cloudPath=<key>`, the bytes as the body | `{ fileID, etag, size }`; the body streams to the store |
 * | `GET <CLOUDFN_PREFIX>/files/download?fileID=<id>` | the bytes, with the object's `Content-Type` and `ETag` |
 * | `POST <CLOUDFN_PREFIX>/files/delete` `{ fileList: [id] }` | `{ fileList: [{ fileID, status, errMsg }] }` |
 * | `POST <CLOUDFN_PREFIX>/files/temp-url` `{ fileList: [id or { fileID, maxAge }] }` | the same with `tempFileURL` (a presigned GET URL) and `maxAge` |
 *
 * Files go to the app's default bucket, at `cloudPath`. Uploading needs a logged-in user, as on
 * the platform: a call that carries no identity header is the dev user's (logged in); one that
 * names a user not signed in (`X-TT-ANONYMOUS-OPENID` alone) is refused 401.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CLOUDFN_PREFIX } from '../../../runtime/options.js';
import { hasGatewayHeaders } from '../../../runtime/request/caller.js';
import type { RouteHandler } from '../../../runtime/serve/extension.js';
import { readBodyUpTo, sendJson } from '../../../runtime/serve/hook-io.js';
import { ENV_HEADER } from '../../client/gateway-wire.js';
import {
  cloudPathProblem,
  type FileListItem,
  FILES_PATHS,
  FILES_ROUTE,
  fileIdOf,
  MAX_FILE_LIST,
  MAX_TEMP_URL_AGE_S,
  parseFileId,
} from '../../client/storage-wire.js';
import { platformError } from '../errors.js';
import { answerFailure } from './answer-failure.js';

/** What the routes use of the object store (object-store.ts). */
export interface FilesStore {
  hasBucket(name: string): Promise<boolean>;
  createBucket(name: string): Promise<unknown>;
  putObject(
    bucket: string,
    key: string,
    body: NodeJS.ReadableStream,
    head?: { contentType?: string },
  ): Promise<{ etag: string; size: number }>;
  getObject(
    bucket: string,
    key: string,
  ): Promise<{ info: { size: number; etag: string; contentType: string }; body: NodeJS.ReadableStream }>;
  headObject(bucket: string, key: string): Promise<unknown>;
  deleteObject(bucket: string, key: string): Promise<unknown>;
}

/** What the routes need beside the store. */
export interface FilesRoutesOptions {
  store: FilesStore;
  /** The bucket uploads go to (the app's default bucket). */
  bucket: string;
  /** A presigned GET URL of an object that lives `maxAgeS` seconds. */
  presignGet(bucket: string, key: string, maxAgeS: number): string;
  /** The environment named in file ids when the call names none (CLOUD_ENV under dev). @default 'local' */
  env?: string;
}

/** The most a JSON body of `delete` or `temp-url` may hold. */
const MAX_JSON_BODY = 256 * 1024;

/** Whether the store refused because the object or its bucket is not there. */
function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'NoSuchKey' || code === 'NoSuchBucket';
}

async function readFileList(req: IncomingMessage, call: string): Promise<unknown[]> {
  const body = await readBodyUpTo(req, MAX_JSON_BODY);
  if (body === undefined)
    throw platformError('PLATFORM_FILES_BAD_REQUEST', call, `the body is over ${MAX_JSON_BODY} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw platformError('PLATFORM_FILES_BAD_REQUEST', call, 'the body must be JSON { "fileList": [fileID, …] }');
  }
  const list = (parsed as { fileList?: unknown } | null)?.fileList;
  if (!Array.isArray(list) || list.length === 0)
    throw platformError(
      'PLATFORM_FILES_BAD_REQUEST',
      call,
      `fileList must be a non-empty array of fileIDs, got ${JSON.stringify(list)}`,
    );
  if (list.length > MAX_FILE_LIST)
    throw platformError(
      'PLATFORM_FILES_BAD_REQUEST',
      call,
      `fileList holds at most ${MAX_FILE_LIST} files, got ${list.length}; split it over calls`,
    );
  return list;
}

const failed = (fileID: unknown, status: number, errMsg: string): FileListItem => ({
  fileID: typeof fileID === 'string' ? fileID : JSON.stringify(fileID),
  status,
  errMsg,
});

/**
 * The handler of `<CLOUDFN_PREFIX>/files`, for an extension's `routes`.
 * @example routes: () => ({ files: filesRoute({ store, bucket: 'cloudfn-dev', presignGet }) })
 */
export function filesRoute(options: FilesRoutesOptions): RouteHandler {
  const { store, bucket } = options;
  // The default bucket exists from the start; made again here if someone deleted it since.
  const ensureBucket = async (): Promise<void> => {
    if (!(await store.hasBucket(bucket))) await store.createBucket(bucket);
  };
  const envOf = (req: IncomingMessage): string => {
    const given = req.headers[ENV_HEADER];
    return typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : (options.env ?? 'local');
  };

  const upload = async (req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> => {
    if (hasGatewayHeaders(req.headers) && req.headers['x-tt-openid'] === undefined)
      throw platformError('PLATFORM_FILES_NOT_LOGGED_IN', 'uploadFile');
    const cloudPath = query.get('cloudPath');
    const problem = cloudPathProblem(cloudPath ?? undefined);
    if (problem !== undefined) throw platformError('PLATFORM_FILES_BAD_REQUEST', 'uploadFile', problem);
    await ensureBucket();
    const type = req.headers['content-type'];
    const info = await store.putObject(bucket, cloudPath!, req, {
      ...(type === undefined || type === 'application/octet-stream' ? {} : { contentType: type }),
    });
    sendJson(res, 200, {
      fileID: fileIdOf({ env: envOf(req), bucket, key: cloudPath! }),
      etag: info.etag,
      size: info.size,
    });
  };

  const download = async (res: ServerResponse, query: URLSearchParams): Promise<void> => {
    const fileID = query.get('fileID');
    const address = parseFileId(fileID ?? undefined);
    if (typeof address === 'string') throw platformError('PLATFORM_FILES_BAD_REQUEST', 'downloadFile', address);
    let object: Awaited<ReturnType<FilesStore['getObject']>>;
    try {
      object = await store.getObject(address.bucket, address.key);
    } catch (error) {
      if (isMissing(error)) throw platformError('PLATFORM_FILES_NOT_FOUND', fileID!);
      throw error;
    }
    res.writeHead(200, {
      'content-type': object.info.contentType || 'application/octet-stream',
      'content-length': object.info.size,
      etag: object.info.etag,
      'cache-control': 'no-store',
    });
    object.body.on('error', () => res.destroy());
    object.body.pipe(res);
  };

  const remove = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const list = await readFileList(req, 'deleteFile');
    const fileList: FileListItem[] = [];
    for (const fileID of list) {
      const address = parseFileId(fileID);
      if (typeof address === 'string') {
        fileList.push(failed(fileID, 400, address));
        continue;
      }
      try {
        // TOS deletes a missing key without a word; the platform's list says which were not there.
        await store.headObject(address.bucket, address.key);
        await store.deleteObject(address.bucket, address.key);
        fileList.push({ fileID: fileID as string, status: 0, errMsg: 'ok' });
      } catch (error) {
        if (!isMissing(error)) throw error;
        fileList.push(failed(fileID, 404, `no file has fileID ${JSON.stringify(fileID)}`));
      }
    }
    sendJson(res, 200, { fileList });
  };

  const tempUrls = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const list = await readFileList(req, 'getTempFileURL');
    const fileList: FileListItem[] = [];
    for (const item of list) {
      const object = typeof item === 'object' && item !== null ? (item as { fileID?: unknown; maxAge?: unknown }) : {};
      const fileID = typeof item === 'string' ? item : object.fileID;
      const maxAge = object.maxAge ?? MAX_TEMP_URL_AGE_S;
      if (!Number.isInteger(maxAge) || (maxAge as number) < 1 || (maxAge as number) > MAX_TEMP_URL_AGE_S) {
        fileList.push(
          failed(
            fileID,
            400,
            `maxAge must be a whole number of seconds from 1 to ${MAX_TEMP_URL_AGE_S}, got ${JSON.stringify(maxAge)}`,
          ),
        );
        continue;
      }
      const address = parseFileId(fileID);
      if (typeof address === 'string') {
        fileList.push(failed(fileID, 400, address));
        continue;
      }
      try {
        await store.headObject(address.bucket, address.key);
      } catch (error) {
        if (!isMissing(error)) throw error;
        fileList.push({
          ...failed(fileID, 404, `no file has fileID ${JSON.stringify(fileID)}`),
          tempFileURL: '',
          maxAge: 0,
        });
        continue;
      }
      fileList.push({
        fileID: fileID as string,
        status: 0,
        errMsg: 'ok',
        tempFileURL: options.presignGet(address.bucket, address.key, maxAge as number),
        maxAge: maxAge as number,
      });
    }
    sendJson(res, 200, { fileList });
  };

  return (req, res, path) => {
    const url = new URL(path, 'http://files.local');
    const method = req.method ?? 'GET';
    const work =
      url.pathname === FILES_PATHS.upload && (method === 'PUT' || method === 'POST')
        ? upload(req, res, url.searchParams)
        : url.pathname === FILES_PATHS.download && method === 'GET'
          ? download(res, url.searchParams)
          : url.pathname === FILES_PATHS.delete && method === 'POST'
            ? remove(req, res)
            : url.pathname === FILES_PATHS.tempUrl && method === 'POST'
              ? tempUrls(req, res)
              : Promise.reject(
                  platformError(
                    'PLATFORM_FILES_API_NOT_FOUND',
                    method,
                    `${CLOUDFN_PREFIX}/${FILES_ROUTE}${url.pathname}`,
                  ),
                );
    work.catch((error: unknown) => answerFailure(res, error));
  };
}
