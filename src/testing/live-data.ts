/**
 * `invokeLiveData`: a live room's messages delivered to a function in process, as the platform
 * pushes them to the data path: a JSON array of whole messages of one type (the fields not
 * given filled in, each with a unique `msg_id`), with `x-roomid`, `x-msg-type`,
 * `x-anchor-openid`, `x-nonce-str`, `x-timestamp`, a valid `x-signature` and an `x-tt-logid`
 * that becomes the request's logid. It is `invoke` underneath, behind a trusted gateway.
 */
import { generateLogid } from '../../runtime/log/logid.js';
import { DEV_LIVE_SECRET } from '../platform/live/config.js';
import {
  fillMessages,
  isLiveMsgType,
  type LiveMessageOf,
  type LiveMsgType,
  MsgIds,
} from '../platform/live/messages.js';
import { pushHeaders } from '../platform/live/push-headers.js';
import { type AnyHandler, type InvokeOptions, type InvokeResult, type InvokeTarget, invoke } from './invoke.js';

/** What to push. */
export interface LiveDataRequest<T extends LiveMsgType = LiveMsgType> {
  /** The messages' type (`x-msg-type`). */
  msgType: T;
  /** One partial message or several; every field left out is filled in. @default one message of defaults */
  messages?: Partial<LiveMessageOf[T]> | Partial<LiveMessageOf[T]>[];
  /** `x-roomid`. @default '7001' */
  roomid?: string;
  /** `x-anchor-openid`. @default 'anchor-openid' */
  anchorOpenid?: string;
  /** The data secret that signs `x-signature`. @default 'cloudfn-dev-live-secret', as under cloudfn dev */
  secret?: string;
  /** The path pushed to. @default `/<function name>` */
  path?: string;
}

/** `invoke`'s result, plus what was pushed. */
export interface LiveDataResult<T extends LiveMsgType = LiveMsgType, R = unknown> extends InvokeResult<R> {
  /** The whole messages sent (the JSON body). */
  messages: LiveMessageOf[T][];
  /** The push's headers. */
  pushHeaders: Record<string, string>;
}

/**
 * Pushes a live room's messages to a function, as the platform does.
 * @example
 * const res = await invokeLiveData('live_data_callback.ts', { msgType: 'live_gift', messages: [{ sec_gift_id: 'rose', gift_num: 3 }] });
 * expect(res.status).toBe(200);
 * expect(res.messages[0].msg_id).toBeTypeOf('string');
 */
export async function invokeLiveData<T extends LiveMsgType, R = unknown>(
  target: InvokeTarget<AnyHandler>,
  request: LiveDataRequest<T>,
  options: InvokeOptions = {},
): Promise<LiveDataResult<T, R>> {
  if (!isLiveMsgType(request.msgType))
    throw new TypeError(
      `invokeLiveData: msgType must be live_comment, live_gift, live_like or live_fansclub, got ${JSON.stringify(request.msgType)}`,
    );
  const messages = fillMessages(request.msgType, request.messages ?? {}, { ids: new MsgIds() });
  const body = JSON.stringify(messages);
  const headers = pushHeaders({
    roomid: request.roomid ?? '7001',
    msgType: request.msgType,
    anchorOpenid: request.anchorOpenid ?? 'anchor-openid',
    body,
    secret: request.secret ?? DEV_LIVE_SECRET,
  });
  const result = await invoke(
    target,
    {
      method: 'POST',
      headers: { ...headers, 'x-tt-logid': generateLogid() },
      body,
      ...(request.path === undefined ? {} : { path: request.path }),
    },
    { ...options, runtime: { trustGatewayHeaders: true, ...options.runtime } },
  );
  return { ...(result as InvokeResult<R>), messages, pushHeaders: headers };
}
