// The platform POSTs the room's messages here (liveData.path in cloudfn.config.json): a JSON
// array of one type, with the room, the type and the anchor in headers, signed with the data
// secret. A push whose signature is wrong is refused (401). A signed one is pushed on to the
// anchor's game client through the WebSocket gateway (live_interaction/push_data), as one
// message whose data is the array as text. The gateway answers which sessions (or openids) it
// could not reach in failed_session_id_list (the anchor's client is not connected): those are
// reported as `failed` and logged, not retried; `pushed` is true only when none failed.
import { createHash } from 'node:crypto';
import { dySDK } from '@open-dy/node-server-sdk';
import { HttpError, type Service } from 'cloudfn';

const PUSH_URL = 'http://ws-push.dycloud-api.service/ws/live_interaction/push_data';

/** What the gateway answers a push: the sessions (or openids) it could not reach. */
interface PushAnswer {
  err_no?: number;
  err_msg?: string;
  data?: { failed_session_id_list?: (string | number)[] };
}

function header(service: Service, name: string): string {
  const value = service.headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

/** The platform's signature: md5 (base64) of the sorted x- headers, the body and the data secret. */
function signatureOf(service: Service, body: string): string {
  const secret = process.env['LIVE_DATA_SECRET'] || 'cloudfn-dev-live-secret';
  const signed = ['x-msg-type', 'x-nonce-str', 'x-roomid', 'x-timestamp'].map((n) => `${n}=${header(service, n)}`);
  return createHash('md5')
    .update(signed.join('&') + body + secret, 'utf8')
    .digest('base64');
}

export default async function liveDataCallback(params: { msg_id: string }[], service: Service) {
  if (signatureOf(service, service.rawBody.toString('utf8')) !== header(service, 'x-signature'))
    throw new HttpError(401, 'x-signature does not match: is LIVE_DATA_SECRET the data secret of this app?');
  const anchor = header(service, 'x-anchor-openid');
  const msgType = header(service, 'x-msg-type');
  let failed: string[] = [];
  let error: string | undefined;
  try {
    const answer = (await dySDK.context(service).openApiInvoke({
      url: PUSH_URL,
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-TT-WS-OPENIDS': JSON.stringify([anchor]) },
      data: { msg_id: params[0]?.msg_id, msg_type: msgType, data: JSON.stringify(params) },
    })) as PushAnswer;
    if (answer.err_no !== undefined && answer.err_no !== 0) error = answer.err_msg ?? `err_no ${answer.err_no}`;
    failed = (answer.data?.failed_session_id_list ?? []).map(String);
  } catch (thrown) {
    error = thrown instanceof Error ? thrown.message : String(thrown);
  }
  if (error !== undefined) failed = [anchor];
  if (failed.length > 0) service.log({ pushFailed: error ?? 'not connected', failed });
  const roomid = header(service, 'x-roomid');
  return { received: params.length, msg_type: msgType, roomid, anchor, pushed: failed.length === 0, failed };
}
