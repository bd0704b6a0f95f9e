/**
 * The emulator's table of error codes. Each row carries the HTTP status, the `err_no` the
 * envelope carries (the Media API's codes of docs/platform-contract.md where it has one; for
 * tokens the open platform's 28001003 and 28001008, which the media client also knows; ours
 * elsewhere, see docs/platform.md) and a message that names the bad value and the fix.
 */
import { CLOUDFN_PREFIX } from '../../runtime/options.js';
import { defineErrorTable, type CreateError, type ErrorSpec, TableError } from '../../runtime/errors.js';

/** One row of the platform table: an `ErrorSpec` plus the envelope's `err_no`. */
export interface PlatformErrorSpec extends ErrorSpec {
  readonly errNo: number;
  /**
   * The platform's own text, for the refusals its database pages describe: the error then
   * carries `errorCode` (= errNo) and `errMsg` as the platform's SDK throws them.
   */
  readonly errMsg?: string;
}

const table = {
  PLATFORM_PARAM_ERROR: { status: 400, errNo: 40001, message: (detail: string) => `param error: ${detail}` },
  PLATFORM_NO_AUTHORITY: {
    status: 400,
    errNo: 41050,
    message: (vid: string, appid: string) =>
      `no user authority error: video ${vid} belongs to another mini-program than ${appid}; use a token issued for the owner's client_key`,
  },
  PLATFORM_INPUT_INVALID: {
    status: 400,
    errNo: 401001,
    message: (detail: string) => `input params is invalid: ${detail}`,
  },
  PLATFORM_SPACE_NOT_EXIST: {
    status: 400,
    errNo: 401002,
    message: (envId: string, known: string) =>
      `space not exist: env_id ${JSON.stringify(envId)} is not an environment of this platform; use one of ${known}`,
  },
  PLATFORM_VIDEO_NOT_EXIST: {
    status: 400,
    errNo: 401003,
    message: (vid: string) =>
      `video not exist: no video has vid ${JSON.stringify(vid)}; list videos with get_video_list`,
  },
  PLATFORM_TOKEN_MISSING: {
    status: 401,
    errNo: 28001003,
    message: () => `access-token header is missing; get one from POST /oauth/client_token/ and send it as access-token`,
  },
  PLATFORM_TOKEN_INVALID: {
    status: 401,
    errNo: 28001003,
    message: (token: string) =>
      `access-token ${JSON.stringify(token)} was not issued by this platform; get a new one from POST /oauth/client_token/`,
  },
  PLATFORM_TOKEN_EXPIRED: {
    status: 401,
    errNo: 28001008,
    message: (expiredAt: string) =>
      `access-token expired at ${expiredAt}; get a new one from POST /oauth/client_token/`,
  },
  PLATFORM_TOKEN_RETIRED: {
    status: 401,
    errNo: 28001003,
    message: (clientKey: string, retiredAt: string) =>
      `access-token was retired at ${retiredAt}: newer tokens were issued for client_key ${JSON.stringify(clientKey)} (a token stays valid 5 minutes after the next one, and only the latest two are valid); share one token across instances (CLOUDFN_REDIS_URL) instead of fetching one each`,
  },
  PLATFORM_TOKEN_FETCH_LIMIT: {
    status: 429,
    errNo: 10020,
    message: (clientKey: string, limit: number, seconds: number) =>
      `client_key ${JSON.stringify(clientKey)} fetched more than ${limit} tokens in ${seconds} s; cache the token until it expires and share it across instances (CLOUDFN_REDIS_URL)`,
  },
  PLATFORM_SIGNATURE_MISSING: {
    status: 401,
    errNo: 40103,
    message: (appid: string) =>
      `appid ${appid} has an app public key registered, so requests need a Platform-Authorization header; sign the request with the app private key`,
  },
  PLATFORM_SIGNATURE_INVALID: {
    status: 401,
    errNo: 40104,
    message: (detail: string) => `Platform-Authorization was refused: ${detail}`,
  },
  PLATFORM_BAD_CLIENT: {
    status: 401,
    errNo: 40105,
    message: (clientKey: string) =>
      `client_key ${JSON.stringify(clientKey)} and its client_secret are not registered; use a pair given to the emulator with --client key:secret`,
  },
  PLATFORM_RATE_LIMITED: {
    status: 429,
    errNo: 42900,
    message: (operation: string, limit: number) =>
      `rate limit of ${operation} exceeded (${limit} per second per appid); retry after a second`,
  },
  PLATFORM_NOT_FOUND: {
    status: 404,
    errNo: 40400,
    message: (path: string) =>
      `no interface at ${path}; use POST /oauth/client_token/ or POST /api/cloud_voc/<operation>`,
  },
  PLATFORM_METHOD_NOT_ALLOWED: {
    status: 405,
    errNo: 40500,
    message: (method: string) => `method ${method} is not allowed; every interface is POST`,
  },
  PLATFORM_BODY_TOO_LARGE: {
    status: 413,
    errNo: 41300,
    message: (limit: number) => `the body is larger than ${limit} bytes; send less`,
  },
  PLATFORM_INTERNAL: {
    status: 500,
    errNo: 50000,
    message: (detail: string) => `internal error: ${detail}; retry, and quote the log id if it persists`,
  },
  PLATFORM_LINK_EXPIRED: {
    status: 403,
    errNo: 40300,
    message: (expiredAt: string) => `this media link expired at ${expiredAt}; get a fresh one with get_video_by_vid`,
  },
  PLATFORM_LINK_INVALID: {
    status: 403,
    errNo: 40301,
    message: () => `this media link is not signed by this platform; use a link from get_video_by_vid unchanged`,
  },
  PLATFORM_MEDIA_NOT_FOUND: {
    status: 404,
    errNo: 40401,
    message: (path: string) => `no media at ${path}; the video may have been deleted`,
  },
  PLATFORM_RANGE_NOT_SATISFIABLE: {
    status: 416,
    errNo: 41600,
    message: (range: string, size: number) =>
      `Range ${range} is outside the file of ${size} bytes; ask for bytes 0-${Math.max(0, size - 1)}`,
  },
  PLATFORM_BAD_PUBLIC_KEY: {
    status: 400,
    errNo: 40001,
    message: (detail: string) =>
      `param error: the app public key is not a PEM "BEGIN PUBLIC KEY" RSA 2048 key (${detail}); upload the whole SubjectPublicKeyInfo PEM`,
  },
  PLATFORM_DATA_CORRUPT: {
    status: 500,
    errNo: 50001,
    message: (file: string, detail: string) =>
      `${file} cannot be read (${detail}); fix or delete it, or start with --reset`,
  },
  PLATFORM_SDK_NOT_EMULATED: {
    status: 500,
    errNo: 50101,
    message: (member: string) =>
      `${member} is not emulated by cloudfn's local stand-in of @open-dy/node-server-sdk (it has context(), getContext(), openApiInvoke() and database()); install the real package to use it, see docs/platform-projects.md#the-server-sdk`,
  },
  PLATFORM_SDK_NO_OPENAPI_TARGET: {
    status: 500,
    errNo: 50102,
    message: (
      url: string,
      detail: string,
      fix = 'set CLOUDFN_SDK_OPENAPI_URL to a local server that answers it (or run cloudfn dev --platform for the media interfaces)',
    ) => `openApiInvoke cannot send ${url} anywhere locally: ${detail}; ${fix}`,
  },
  PLATFORM_SDK_BAD_ARGUMENT: {
    status: 500,
    errNo: 50103,
    message: (what: string, detail: string) => `${what} ${detail}`,
  },
  PLATFORM_SDK_NO_MINGO: {
    status: 500,
    errNo: 50104,
    message: (detail: string) =>
      `the stand-in's database() runs its queries with mingo, which cannot be loaded (${detail}); install it with npm install mingo`,
  },
  PLATFORM_DB_COLLECTION_REQUIRED: {
    status: 400,
    errNo: 156401,
    errMsg: '集合名必填',
    message: (got: string) => `db.collection() needs a collection name, got ${got}; name one: db.collection('todos')`,
  },
  PLATFORM_DB_BAD_DOC_ID: {
    status: 400,
    errNo: 156401,
    errMsg: 'docId必须为非空字符串',
    message: (operation: string, got: string) =>
      `doc(id).${operation}() needs the document's _id as a non-empty string, got ${got}; pass the _id that add() answered`,
  },
  PLATFORM_DB_ID_UPDATE: {
    status: 400,
    errNo: 156401,
    errMsg: '_id值不能更新',
    message: (operation: string, got: string) =>
      `${operation}() cannot change a document's _id (the data has _id ${got}); leave _id out, or add() a new document and remove() the old one`,
  },
  PLATFORM_DB_EMPTY_DATA: {
    status: 400,
    errNo: 156401,
    errMsg: '参数必须为非空对象',
    message: (operation: string, got: string) =>
      `${operation}() needs a non-empty object of fields, got ${got}; e.g. ${operation}({ done: true })`,
  },
  PLATFORM_DB_LOCKED: {
    status: 503,
    errNo: 50105,
    message: (file: string, holder: string, waitedMs: number) =>
      `the database is locked by ${file} (held by process and time: ${holder}) for more than ${waitedMs} ms; if that process is gone, delete the file`,
  },
  PLATFORM_DB_BAD_DUMP: {
    status: 400,
    errNo: 40001,
    message: (source: string, detail: string) => `${source}: ${detail}; nothing was written`,
  },
  PLATFORM_DB_DOC_EXISTS: {
    status: 409,
    errNo: 40903,
    message: (collection: string, id: string) =>
      `collection "${collection}" has a document with _id ${JSON.stringify(id)} already; edit that one (PUT …/collections/${collection}/<id>) or leave _id out`,
  },
  PLATFORM_DB_API_NOT_FOUND: {
    status: 404,
    errNo: 40402,
    message: (method: string, path: string) =>
      `${method} ${path} is not a database endpoint; use GET ${CLOUDFN_PREFIX}/api/database[?collection=…], GET …/database/export, POST …/database/import[?merge=1], DELETE …/database, POST …/database/collections/<name>, PUT or DELETE …/database/collections/<name>/<id>, DELETE …/database/collections/<name>`,
  },
  PLATFORM_LIVE_BAD_MESSAGE: {
    status: 400,
    errNo: 40001,
    message: (type: string, index: number, detail: string) => `${type} message ${index}: ${detail}`,
  },
  PLATFORM_LIVE_BAD_TYPE: {
    status: 400,
    errNo: 40001,
    message: (value: string) =>
      `msg_type ${JSON.stringify(value)} is not a live-room message type; use live_comment, live_gift, live_like or live_fansclub`,
  },
  PLATFORM_LIVE_BAD_TASK: {
    status: 400,
    errNo: 40001,
    message: (detail: string, example: string) => `live_data task: ${detail}; send ${example}`,
  },
  PLATFORM_LIVE_NO_TASK: {
    status: 409,
    errNo: 40901,
    message: (roomid: string, type: string, started: string) =>
      `room ${JSON.stringify(roomid)} has no started ${type} task, so the platform would not push it (started tasks: ${started}); start it with POST https://webcast.bytedance.com/api/live_data/task/start (your start_game), or the console's Live room panel`,
  },
  PLATFORM_LIVE_NO_PATH: {
    status: 409,
    errNo: 40902,
    message: () =>
      'no live-data path is configured; add "liveData": { "path": "/live_data_callback" } to cloudfn.config, the path the platform POSTs the room\'s messages to',
  },
  PLATFORM_LIVE_BAD_TOKEN: {
    status: 400,
    errNo: 40001,
    message: (detail: string) =>
      `live-room token: ${detail}; send POST ${CLOUDFN_PREFIX}/live/7001/token with { "anchor_openid"?, "nick_name"?, "avatar_url"? }`,
  },
  PLATFORM_LIVE_BAD_TRAFFIC: {
    status: 400,
    errNo: 40001,
    message: (detail: string) => `scripted traffic: ${detail}`,
  },
  PLATFORM_LIVE_NOT_FOUND: {
    status: 404,
    errNo: 40401,
    message: (method: string, path: string) =>
      `${method} ${path} is not a live-room endpoint; use POST ${CLOUDFN_PREFIX}/live/<roomid>/<msg_type>, GET ${CLOUDFN_PREFIX}/live/rooms, or the task calls under ${CLOUDFN_PREFIX}/live/api/live_data/task/`,
  },
  PLATFORM_WS_TOO_MANY_IDS: {
    status: 400,
    errNo: 40001,
    message: (header: string, count: number, max: number) =>
      `param error: ${header} lists ${count} ids, at most ${max} are allowed per call; split the ids over several calls, or put the connections in a group and push to the group`,
  },
  PLATFORM_WS_NOT_FOUND: {
    status: 404,
    errNo: 40400,
    message: (path: string, paths: string) => `no push interface at ${path}; the gateway answers ${paths}`,
  },
  PLATFORM_WS_CONNECT_REFUSED: {
    status: 400,
    errNo: 40001,
    message: (detail: string) => `the WebSocket connection was refused: ${detail}`,
  },
  PLATFORM_WS_GATEWAY_OFF: {
    status: 503,
    errNo: 50300,
    message: (what: string) =>
      `${what}: the WebSocket gateway is off under cloudfn start; set "gateway": true in cloudfn.config.json (or CLOUDFN_GATEWAY=1) to accept connections at /__dycloud__/ws/connect/ and answer the push API`,
  },
  PLATFORM_FILES_BAD_REQUEST: {
    status: 400,
    errNo: 40001,
    message: (call: string, detail: string) => `${call}: ${detail}`,
  },
  PLATFORM_FILES_NOT_LOGGED_IN: {
    status: 401,
    errNo: 40100,
    message: (call: string) =>
      `${call} needs a logged-in user (tt.login), and this call came from a user not signed in (X-TT-ANONYMOUS-OPENID without X-TT-OPENID); call as a user (createCloud({ user: { openid: 'ann' } })), or send no identity header to act as the dev user`,
  },
  PLATFORM_FILES_NOT_FOUND: {
    status: 404,
    errNo: 40404,
    message: (fileID: string) =>
      `no file has fileID ${JSON.stringify(fileID)}; upload it first (uploadFile), or look in the console's Storage panel`,
  },
  PLATFORM_FILES_API_NOT_FOUND: {
    status: 404,
    errNo: 40405,
    message: (method: string, path: string) =>
      `${method} ${path} is not a storage endpoint; use PUT ${CLOUDFN_PREFIX}/files/upload?cloudPath=…, GET …/files/download?fileID=…, POST …/files/delete, POST …/files/temp-url, or the console's GET ${CLOUDFN_PREFIX}/api/storage[?bucket=…&prefix=…]`,
  },
  PLATFORM_OPTIONS: {
    status: 500,
    errNo: 50002,
    message: (name: string, detail: string) => `option ${name} is invalid: ${detail}`,
  },
} satisfies Record<string, PlatformErrorSpec>;

export type PlatformErrorCode = keyof typeof table;

/**
 * An error the emulator answers on purpose: `status` is the HTTP status, `errNo` the
 * envelope's `err_no`, `code` the stable name documented in docs/errors.md.
 * @example if (error instanceof PlatformError) console.log(error.code, error.errNo)
 */
export class PlatformError extends TableError<PlatformErrorCode> {
  override name = 'PlatformError';
  readonly errNo: number;
  /** The platform's `errorCode`, on the refusals its database pages describe (`errMsg` beside it). */
  readonly errorCode?: number;
  /** The platform's own text of the refusal, e.g. `集合名必填`; `message` says how to fix it. */
  readonly errMsg?: string;
  constructor(code: PlatformErrorCode, message: string, options?: ErrorOptions) {
    super(code, table[code].status, message, options);
    const row: PlatformErrorSpec = table[code];
    this.errNo = row.errNo;
    if (row.errMsg !== undefined) {
      this.errorCode = row.errNo;
      this.errMsg = row.errMsg;
    }
  }
}

const errors = /* @__PURE__ */ defineErrorTable(table, (code, message) => new PlatformError(code, message));

/** The emulator's error table, exported for the documentation test. */
export const platformErrors: Readonly<Record<PlatformErrorCode, PlatformErrorSpec>> = errors.rows;

/**
 * Builds the error for `code` from the platform table.
 * @example throw platformError('PLATFORM_VIDEO_NOT_EXIST', vid)
 */
export const platformError: CreateError<typeof table, PlatformError> = errors.create;
