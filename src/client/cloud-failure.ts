/**
 * How a `createCloud` call fails, in the platform's shape (its 云函数客户端 API and 公共错误码
 * pages): `errMsg` is `"<function_name>:<status_message>, code=<status_code>, logid=<logid>"`,
 * and `errNo` the client API's code: 21100 network error (no answer: refused, reset, timed out),
 * 21102 gateway error (the gateway answered a failure; its `status_code` is `code`), 20000
 * invalid param (the call's options).
 */

/** The client API's codes (the platform's table for callContainer). */
export const CLOUD_ERRNO = {
  invalidParam: 20000,
  networkError: 21100,
  gatewayError: 21102,
} as const;

/**
 * Every platform code a `createCloud` call can fail with, for the documentation test
 * (docs/errors.md): the gateway's `status_code` (answered with HTTP 200, so `status` is 200) and
 * the client API's `errNo` (no answer, so `status` is what a gateway would answer).
 */
export const cloudCodes: Readonly<Record<string, { status: number; message: string }>> = {
  '13005': { status: 200, message: 'service not found' },
  '14021': { status: 200, message: 'request body limited' },
  '14010': { status: 200, message: 'request qps limited' },
  '14030': { status: 200, message: 'debug request qps limited' },
  '20000': { status: 400, message: 'invalid param' },
  '21100': { status: 502, message: 'network error' },
  '21102': { status: 200, message: 'gateway error' },
};

/** The function name errMsg starts with. */
const FUNCTION_NAME = 'callContainer';

/** What `fail` receives. */
export interface CloudFailure {
  /** `callContainer:<status_message>, code=<status_code>, logid=<logid>`. */
  errMsg: string;
  /** 21100 network error, 21102 gateway error, 20000 invalid param. */
  errNo: number;
  /** The `code=` of errMsg: the gateway's status_code (13005, 14021, 14010, 14030), else errNo. */
  code: number;
  /** The `logid=` of errMsg; '' when no answer came. */
  logid: string;
}

/**
 * The rejection of the promise form: an Error carrying the failure's fields.
 * @example try { await cloud.callContainer({ path: '/top' }) } catch (e) { if (e instanceof CloudCallError && e.code === 13005) … }
 */
export class CloudCallError extends Error implements CloudFailure {
  override name = 'CloudCallError';
  readonly errMsg: string;
  readonly errNo: number;
  readonly code: number;
  readonly logid: string;
  constructor(failure: CloudFailure, options?: ErrorOptions) {
    super(failure.errMsg, options);
    this.errMsg = failure.errMsg;
    this.errNo = failure.errNo;
    this.code = failure.code;
    this.logid = failure.logid;
  }

  /** The plain object `fail` receives. */
  toFailure(): CloudFailure {
    return { errMsg: this.errMsg, errNo: this.errNo, code: this.code, logid: this.logid };
  }
}

/**
 * Builds the error of a failed call.
 * @example cloudError(21102, 13005, 'service not found', '0193…') // errMsg 'callContainer:service not found, code=13005, logid=0193…'
 */
export function cloudError(
  errNo: number,
  code: number,
  message: string,
  logid: string,
  cause?: unknown,
): CloudCallError {
  return new CloudCallError(
    { errMsg: `${FUNCTION_NAME}:${message}, code=${code}, logid=${logid}`, errNo, code, logid },
    cause === undefined ? undefined : { cause },
  );
}
