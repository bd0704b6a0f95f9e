/**
 * What passes between the storage methods of `createCloud` (cloud-storage.ts) and the local
 * object store's dev routes (src/platform/storage/files-routes.ts): the routes under
 * `<CLOUDFN_PREFIX>/files/`, the file ids, and the JSON of each answer. Both sides read this one file.
 * No Node types: a page could read it too.
 */

/** The routes' key under `<CLOUDFN_PREFIX>/` (runtime/options.ts CLOUDFN_PREFIX). */
export const FILES_ROUTE = 'files';

/** The four calls, by the path that follows `<CLOUDFN_PREFIX>/files`. */
export const FILES_PATHS = {
  /** `PUT ?cloudPath=<key>`, the file's bytes as the body: `UploadAnswer`. */
  upload: '/upload',
  /** `GET ?fileID=<id>`: the file's bytes. */
  download: '/download',
  /** `POST { fileList: string[] }`: `FileListAnswer`. */
  delete: '/delete',
  /** `POST { fileList: (string | { fileID, maxAge })[] }`: `FileListAnswer` with `tempFileURL`. */
  tempUrl: '/temp-url',
} as const;

/** How a file id starts: `cloud://<envID>.<bucket>/<cloudPath>`. */
export const FILE_ID_SCHEME = 'cloud://';

/** How many files one `deleteFile` or `getTempFileURL` takes, as the platform's peers do. */
export const MAX_FILE_LIST = 50;

/** The longest a temporary URL lives, in seconds (one day), and the default. */
export const MAX_TEMP_URL_AGE_S = 86_400;

/** A file's place in the store. */
export interface FileAddress {
  env: string;
  bucket: string;
  key: string;
}

/**
 * The file id of an object: `cloud://env-1.cloudfn-dev/avatars/a.png`.
 * @example fileIdOf({ env: 'env-1', bucket: 'cloudfn-dev', key: 'avatars/a.png' })
 */
export function fileIdOf(address: FileAddress): string {
  return `${FILE_ID_SCHEME}${address.env}.${address.bucket}/${address.key}`;
}

/**
 * The place a file id names, or a sentence saying what is wrong with it. The bucket is what
 * follows the last dot of the host (a bucket name has no dot), the environment what precedes it.
 * @example parseFileId('cloud://env-1.cloudfn-dev/avatars/a.png') // { env: 'env-1', bucket: 'cloudfn-dev', key: 'avatars/a.png' }
 */
export function parseFileId(fileID: unknown): FileAddress | string {
  const example = `${FILE_ID_SCHEME}<envID>.<bucket>/<cloudPath>, as uploadFile answered`;
  if (typeof fileID !== 'string' || !fileID.startsWith(FILE_ID_SCHEME))
    return `fileID must be a string ${example}, got ${JSON.stringify(fileID)}`;
  const rest = fileID.slice(FILE_ID_SCHEME.length);
  const slash = rest.indexOf('/');
  const host = slash < 0 ? rest : rest.slice(0, slash);
  const key = slash < 0 ? '' : rest.slice(slash + 1);
  const dot = host.lastIndexOf('.');
  if (dot <= 0 || dot === host.length - 1 || key === '')
    return `fileID must be ${example}, got ${JSON.stringify(fileID)}`;
  return { env: host.slice(0, dot), bucket: host.slice(dot + 1), key };
}

/**
 * Why `cloudPath` cannot name an object, or undefined when it can: a non-empty path of at most
 * 1024 bytes, not starting with `/`, without control characters or `.`/`..` segments.
 * @example cloudPathProblem('/a.png') // 'cloudPath must not start with "/", got "/a.png"; …'
 */
export function cloudPathProblem(cloudPath: unknown): string | undefined {
  if (typeof cloudPath !== 'string' || cloudPath === '')
    return `cloudPath must be a non-empty string such as "avatars/a.png", got ${JSON.stringify(cloudPath)}`;
  if (cloudPath.startsWith('/'))
    return `cloudPath must not start with "/", got ${JSON.stringify(cloudPath)}; write it as ${JSON.stringify(cloudPath.replace(/^\/+/, ''))}`;
  if (new TextEncoder().encode(cloudPath).length > 1024)
    return `cloudPath must be at most 1024 bytes, got ${new TextEncoder().encode(cloudPath).length}`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (/[\x00-\x1f\x7f]/.test(cloudPath))
    return `cloudPath must not hold control characters, got ${JSON.stringify(cloudPath)}`;
  if (cloudPath.split('/').some((part) => part === '.' || part === '..'))
    return `cloudPath must not hold "." or ".." segments, got ${JSON.stringify(cloudPath)}`;
  return undefined;
}

/** The answer of an upload. */
export interface UploadAnswer {
  fileID: string;
  /** The object's ETag, as TOS answers it. */
  etag: string;
  size: number;
}

/** One file of a `deleteFile` or `getTempFileURL` answer, in the platform's shape. */
export interface FileListItem {
  fileID: string;
  /** 0 when this file succeeded; else the HTTP status of why not (404 no such file, 400 a bad id). */
  status: number;
  /** `ok`, or why not. */
  errMsg: string;
  /** `getTempFileURL`: a presigned GET URL of the local store ('' when status is not 0). */
  tempFileURL?: string;
  /** `getTempFileURL`: how long the URL lives, in seconds. */
  maxAge?: number;
}

/** The answer of `delete` and `temp-url`. */
export interface FileListAnswer {
  fileList: FileListItem[];
}

/** A refusal of the whole call: `{ error: { code, message } }`, as every cloudfn error. */
export interface FilesErrorAnswer {
  error: { code: string; message: string; logid?: string };
}
