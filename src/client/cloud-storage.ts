/**
 * The storage methods of the cloud object of `createCloud` (the platform's `tt.createCloud`,
 * base library 2.76.0): `uploadFile({ cloudPath, filePath })`, `downloadFile({ fileID })`,
 * `deleteFile({ fileList })` and `getTempFileURL({ fileList })`, each with `success`, `fail` and
 * `complete` or as a promise, answered in the platform's shapes (`errMsg: 'Cloud.uploadFile:ok'`,
 * `fileID`, `tempFilePath`, `fileList[].status`, `tempFileURL`). Node has no mini-program file
 * system: `filePath` is a file of this machine, and `downloadFile` writes one under the system's
 * temporary folder. They reach the local object store of `cloudfn dev` (or `startStorage` of
 * `cloudfn/testing`) by its routes under `<CLOUDFN_PREFIX>/files/` (storage-wire.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CLOUDFN_PREFIX } from '../../runtime/options.js';
import { callerHeaders } from '../../runtime/request/caller.js';
import type { CallerInit } from '../../runtime/types.js';
import { runCallbacks } from './call-container.js';
import { CLOUD_ERRNO, CloudCallError, type CloudFailure } from './cloud-failure.js';
import { availableFetch, createAbortController } from '../fetch-fallback/index.js';
import { ENV_HEADER, SERVICE_HEADER } from './gateway-wire.js';
import {
  cloudPathProblem,
  FILES_PATHS,
  FILES_ROUTE,
  type FileListAnswer,
  type FileListItem,
  type FilesErrorAnswer,
  MAX_FILE_LIST,
  MAX_TEMP_URL_AGE_S,
  parseFileId,
  type UploadAnswer,
} from './storage-wire.js';

/** The storage methods' names, as `errMsg` spells them. */
type StorageMethod = 'uploadFile' | 'downloadFile' | 'deleteFile' | 'getTempFileURL';

/** The callbacks every storage method takes. */
export interface Callbacks<R> {
  /** @default 60000 */
  timeout?: number;
  success?: (result: R) => void;
  /** Called with `{ errMsg: 'Cloud.<method>:fail <reason>', errNo, code, logid }`. */
  fail?: (failure: CloudFailure) => void;
  complete?: (result: R | CloudFailure) => void;
}

/** `uploadFile`: a file of this machine stored at `cloudPath` of the app's bucket; needs a logged-in user. */
export interface UploadFileOptions extends Callbacks<UploadFileResult> {
  /** Where it goes in the bucket: `avatars/a.png` (no leading `/`). */
  cloudPath: string;
  /** The local file to send. */
  filePath: string;
}
export interface UploadFileResult {
  errMsg: 'Cloud.uploadFile:ok';
  /** `cloud://<envID>.<bucket>/<cloudPath>`: what the other methods take. */
  fileID: string;
  statusCode: number;
}

/** `downloadFile`: the file of `fileID` written to a temporary file of this machine. */
export interface DownloadFileOptions extends Callbacks<DownloadFileResult> {
  fileID: string;
}
export interface DownloadFileResult {
  errMsg: 'Cloud.downloadFile:ok';
  /** The temporary file holding the bytes, under the system's temporary folder. */
  tempFilePath: string;
  statusCode: number;
}

/** `deleteFile`: up to 50 files removed; each answers its own `status`. */
export interface DeleteFileOptions extends Callbacks<DeleteFileResult> {
  fileList: string[];
}
export interface DeleteFileResult {
  errMsg: 'Cloud.deleteFile:ok';
  fileList: Array<Pick<FileListItem, 'fileID' | 'status' | 'errMsg'>>;
}

/** `getTempFileURL`: a URL per file that opens it without credentials, for `maxAge` seconds. */
export interface GetTempFileURLOptions extends Callbacks<GetTempFileURLResult> {
  /** File ids, or `{ fileID, maxAge }` with maxAge in seconds (at most 86400, the default). */
  fileList: Array<string | { fileID: string; maxAge?: number }>;
}
export interface GetTempFileURLResult {
  errMsg: 'Cloud.getTempFileURL:ok';
  fileList: Array<Required<FileListItem>>;
}

/** What the storage methods need of the cloud object. */
export interface StorageTarget {
  envID: string;
  serviceID: string;
  /** The dev server's URL (CLOUDFN_BASE_URL when not given, read at each call). */
  baseUrl: string | undefined;
  header: Readonly<Record<string, string>> | undefined;
  timeout: number | undefined;
  fetch: typeof globalThis.fetch | undefined;
  user: CallerInit | undefined;
}

/** One storage method: with a callback it answers through the callbacks, else as a promise. */
export interface StorageCall<O extends Callbacks<R>, R> {
  (options: O & { success: NonNullable<Callbacks<R>['success']> }): void;
  (options: O & { fail: NonNullable<Callbacks<R>['fail']> }): void;
  (options: O & { complete: NonNullable<Callbacks<R>['complete']> }): void;
  (options: O): Promise<R>;
}

/** The storage methods of a cloud object. */
export interface CloudStorage {
  uploadFile: StorageCall<UploadFileOptions, UploadFileResult>;
  downloadFile: StorageCall<DownloadFileOptions, DownloadFileResult>;
  deleteFile: StorageCall<DeleteFileOptions, DeleteFileResult>;
  getTempFileURL: StorageCall<GetTempFileURLOptions, GetTempFileURLResult>;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/** The failure of one storage method: `Cloud.uploadFile:fail <reason>`. */
function storageError(method: StorageMethod, errNo: number, code: number, reason: string, logid = ''): CloudCallError {
  return new CloudCallError({ errMsg: `Cloud.${method}:fail ${reason}`, errNo, code, logid });
}

const invalid = (method: StorageMethod, reason: string): CloudCallError =>
  storageError(method, CLOUD_ERRNO.invalidParam, CLOUD_ERRNO.invalidParam, `invalid param: ${reason}`);

/** One request to the store's routes; a refusal becomes the method's failure. */
async function request(
  target: StorageTarget,
  method: StorageMethod,
  timeoutOption: number | undefined,
  path: string,
  init: { method: string; body?: Uint8Array | string; type?: string },
): Promise<Response> {
  const baseUrl = target.baseUrl ?? process.env['CLOUDFN_BASE_URL'];
  if (baseUrl === undefined || baseUrl === '')
    throw invalid(method, 'no base URL: set CLOUDFN_BASE_URL to a cloudfn dev URL, or pass baseUrl to createCloud');
  const timeout = timeoutOption ?? target.timeout ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeout) || timeout <= 0)
    throw invalid(method, `timeout must be a positive whole number of milliseconds, got ${JSON.stringify(timeout)}`);
  const headers: Record<string, string> = {
    [SERVICE_HEADER]: target.serviceID,
    [ENV_HEADER]: target.envID,
    ...target.header,
  };
  if (target.user !== undefined) {
    try {
      Object.assign(headers, callerHeaders(target.user));
    } catch (error) {
      throw invalid(method, (error as Error).message);
    }
  }
  if (init.type !== undefined) headers['content-type'] = init.type;
  const url = `${baseUrl.replace(/\/+$/, '')}${CLOUDFN_PREFIX}/${FILES_ROUTE}${path}`;
  const controller = createAbortController();
  const timer = setTimeout(() => controller.abort(), timeout);
  let response: Response;
  try {
    response = await (target.fetch ?? availableFetch())(url, {
      method: init.method,
      headers,
      ...(init.body === undefined ? {} : { body: init.body as RequestInit['body'] }),
      signal: controller.signal,
    });
    if (response.ok) return response;
    const text = await response.text();
    let refusal: FilesErrorAnswer['error'] | undefined;
    try {
      refusal = (JSON.parse(text) as FilesErrorAnswer).error;
    } catch {
      refusal = undefined;
    }
    throw storageError(
      method,
      CLOUD_ERRNO.gatewayError,
      response.status,
      refusal?.message ?? `${url} answered ${response.status} ${text.slice(0, 200)}`,
      refusal?.logid ?? response.headers.get('x-platform-logid') ?? '',
    );
  } catch (error) {
    if (error instanceof CloudCallError) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = controller.signal.aborted
      ? `timeout: no answer from ${url} within ${timeout} ms`
      : `network error calling ${url}: ${cause?.code ?? cause?.message ?? (error as Error).message}; is cloudfn dev running at that base URL?`;
    throw storageError(method, CLOUD_ERRNO.networkError, CLOUD_ERRNO.networkError, reason);
  } finally {
    clearTimeout(timer);
  }
}

function checkFileList(method: StorageMethod, list: unknown): unknown[] {
  if (!Array.isArray(list) || list.length === 0)
    throw invalid(method, `fileList must be a non-empty array of fileIDs, got ${JSON.stringify(list)}`);
  if (list.length > MAX_FILE_LIST)
    throw invalid(method, `fileList holds at most ${MAX_FILE_LIST} files, got ${list.length}; split it over calls`);
  return list;
}

async function uploadFile(target: StorageTarget, options: UploadFileOptions): Promise<UploadFileResult> {
  const problem = cloudPathProblem(options?.cloudPath);
  if (problem !== undefined) throw invalid('uploadFile', problem);
  if (typeof options.filePath !== 'string' || options.filePath === '')
    throw invalid('uploadFile', `filePath must be the path of a local file, got ${JSON.stringify(options.filePath)}`);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(options.filePath);
  } catch (error) {
    throw invalid(
      'uploadFile',
      `filePath ${JSON.stringify(options.filePath)} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  const response = await request(
    target,
    'uploadFile',
    options.timeout,
    `${FILES_PATHS.upload}?cloudPath=${encodeURIComponent(options.cloudPath)}`,
    { method: 'PUT', body: bytes, type: 'application/octet-stream' },
  );
  const answer = (await response.json()) as UploadAnswer;
  return { errMsg: 'Cloud.uploadFile:ok', fileID: answer.fileID, statusCode: response.status };
}

async function downloadFile(target: StorageTarget, options: DownloadFileOptions): Promise<DownloadFileResult> {
  const address = parseFileId(options?.fileID);
  if (typeof address === 'string') throw invalid('downloadFile', address);
  const response = await request(
    target,
    'downloadFile',
    options.timeout,
    `${FILES_PATHS.download}?fileID=${encodeURIComponent(options.fileID)}`,
    { method: 'GET' },
  );
  const bytes = new Uint8Array(await response.arrayBuffer());
  const tempFilePath = join(mkdtempSync(join(tmpdir(), 'cloudfn-download-')), basename(address.key));
  writeFileSync(tempFilePath, bytes);
  return { errMsg: 'Cloud.downloadFile:ok', tempFilePath, statusCode: response.status };
}

async function deleteFile(target: StorageTarget, options: DeleteFileOptions): Promise<DeleteFileResult> {
  const fileList = checkFileList('deleteFile', options?.fileList);
  const response = await request(target, 'deleteFile', options.timeout, FILES_PATHS.delete, {
    method: 'POST',
    body: JSON.stringify({ fileList }),
    type: 'application/json',
  });
  const answer = (await response.json()) as FileListAnswer;
  return {
    errMsg: 'Cloud.deleteFile:ok',
    fileList: answer.fileList.map(({ fileID, status, errMsg }) => ({ fileID, status, errMsg })),
  };
}

async function getTempFileURL(target: StorageTarget, options: GetTempFileURLOptions): Promise<GetTempFileURLResult> {
  const fileList = checkFileList('getTempFileURL', options?.fileList);
  for (const item of fileList) {
    const maxAge = typeof item === 'object' && item !== null ? (item as { maxAge?: unknown }).maxAge : undefined;
    if (
      maxAge !== undefined &&
      (!Number.isInteger(maxAge) || (maxAge as number) < 1 || (maxAge as number) > MAX_TEMP_URL_AGE_S)
    )
      throw invalid(
        'getTempFileURL',
        `maxAge must be a whole number of seconds from 1 to ${MAX_TEMP_URL_AGE_S}, got ${JSON.stringify(maxAge)}`,
      );
  }
  const response = await request(target, 'getTempFileURL', options.timeout, FILES_PATHS.tempUrl, {
    method: 'POST',
    body: JSON.stringify({ fileList }),
    type: 'application/json',
  });
  const answer = (await response.json()) as FileListAnswer;
  return {
    errMsg: 'Cloud.getTempFileURL:ok',
    fileList: answer.fileList.map((item) => ({
      fileID: item.fileID,
      tempFileURL: item.tempFileURL ?? '',
      maxAge: item.maxAge ?? 0,
      status: item.status,
      errMsg: item.errMsg,
    })),
  };
}

/** One method in both forms: a promise without callbacks, else the callbacks (and undefined). */
function both<O extends Callbacks<R>, R>(
  method: StorageMethod,
  run: (target: StorageTarget, options: O) => Promise<R>,
  target: () => StorageTarget,
): (options: O) => Promise<R> | undefined {
  return (options: O) => {
    const promise = (async () => {
      try {
        return await run(target(), options);
      } catch (error) {
        if (error instanceof CloudCallError) throw error;
        throw invalid(method, (error as Error).message ?? String(error));
      }
    })();
    if (options?.success === undefined && options?.fail === undefined && options?.complete === undefined)
      return promise;
    promise.then(
      (result) => runCallbacks(options.success, options.complete, result),
      (error: CloudCallError) => runCallbacks(options.fail, options.complete, error.toFailure()),
    );
    return undefined;
  };
}

/**
 * The four storage methods bound to one cloud object.
 * @example const storage = cloudStorage(() => target); const { fileID } = await storage.uploadFile({ cloudPath: 'a.png', filePath: './a.png' });
 */
export function cloudStorage(target: () => StorageTarget): CloudStorage {
  return {
    uploadFile: both('uploadFile', uploadFile, target),
    downloadFile: both('downloadFile', downloadFile, target),
    deleteFile: both('deleteFile', deleteFile, target),
    getTempFileURL: both('getTempFileURL', getTempFileURL, target),
  } as CloudStorage;
}
