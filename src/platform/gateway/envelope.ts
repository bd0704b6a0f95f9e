/**
 * The WebSocket gateway's answer envelope, `{ data, err_msg, err_no }`, built in this one place:
 * the push API's answers (push-api.ts), its failures over HTTP (a body too large, unreadable),
 * the refused upgrade and the refused connect (ws-server.ts). `err_no` is the platform's (0 for
 * success, else the HTTP status times 100 plus a detail, docs/gateway.md).
 */

/** The envelope as the platform writes it. */
export interface Envelope {
  data: unknown;
  err_msg: string;
  err_no: number;
}

/**
 * A success carrying `data`.
 * @example success({ conn_id: 'c1' }) // { data: { conn_id: 'c1' }, err_msg: 'success', err_no: 0 }
 */
export function success(data: unknown): Envelope {
  return { data, err_msg: 'success', err_no: 0 };
}

/**
 * A failure: no data, its number and message.
 * @example failure(41300, 'the body is larger than 10485760 bytes; send less')
 */
export function failure(errNo: number, message: string): Envelope {
  return { data: null, err_msg: message, err_no: errNo };
}

/**
 * The failure as JSON text, for an answer written by hand (a refused upgrade's raw response).
 * @example failureText(40400, 'no WebSocket endpoint at /x; connect to /__dycloud__/ws/connect/')
 */
export function failureText(errNo: number, message: string): string {
  return JSON.stringify(failure(errNo, message));
}
