/**
 * The headers of a live-data push, as the platform sends them to the data path: `x-roomid`,
 * `x-msg-type`, `x-nonce-str`, `x-timestamp` (ms), `x-signature`, `content-type:
 * application/json`, and `x-anchor-openid`, which Douyin Cloud's internal line adds for a
 * service it hosts. The signature is the platform's: the signed headers sorted by name as
 * `k=v&k=v`, then the body, then the secret, MD5, base64 (docs/live-room.md#signature).
 */
import { createHash, randomBytes } from 'node:crypto';

/** The headers the signature covers, in the order they are joined (sorted by name). */
export const SIGNED_HEADERS = ['x-msg-type', 'x-nonce-str', 'x-roomid', 'x-timestamp'] as const;

/** What one push's headers are made from. */
export interface PushHeaderInput {
  roomid: string;
  msgType: string;
  anchorOpenid: string;
  /** The exact JSON body sent. */
  body: string;
  /** The data secret of the mini-program (its console's "数据密钥"). */
  secret: string;
  /** @default Date.now() */
  now?: number;
  /** @default 16 random hex digits */
  nonce?: string;
}

/**
 * The platform's `x-signature` of a push.
 * @example liveSignature({ 'x-msg-type': 'live_comment', 'x-nonce-str': 'n', 'x-roomid': '1', 'x-timestamp': '2' }, '[]', 'secret')
 */
export function liveSignature(headers: Readonly<Record<string, string>>, body: string, secret: string): string {
  const joined = SIGNED_HEADERS.map((name) => `${name}=${headers[name] ?? ''}`).join('&');
  return createHash('md5')
    .update(joined + body + secret, 'utf8')
    .digest('base64');
}

/**
 * The headers of one push.
 * @example pushHeaders({ roomid: '7001', msgType: 'live_gift', anchorOpenid: 'anchor', body, secret })
 */
export function pushHeaders(input: PushHeaderInput): Record<string, string> {
  const signed: Record<string, string> = {
    'x-msg-type': input.msgType,
    'x-nonce-str': input.nonce ?? randomBytes(8).toString('hex'),
    'x-roomid': input.roomid,
    'x-timestamp': String(input.now ?? Date.now()),
  };
  return {
    ...signed,
    'x-signature': liveSignature(signed, input.body, input.secret),
    'x-anchor-openid': input.anchorOpenid,
    'content-type': 'application/json',
  };
}
