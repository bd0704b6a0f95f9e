/**
 * The live room's messages as the platform pushes them (直播间数据开放, "推送数据"): one table of
 * fields per `msg_type`, and `fillMessages`, which turns partial messages (a comment's text, a
 * gift's id) into whole ones: every missing field gets a value of its type, every message a
 * `msg_id` unique in this process. A field given with the wrong type is refused, naming it.
 */
import { platformError } from '../errors.js';

/** The message types a data task can be started for. */
export const LIVE_MSG_TYPES = ['live_comment', 'live_gift', 'live_like', 'live_fansclub'] as const;
export type LiveMsgType = (typeof LIVE_MSG_TYPES)[number];

/** The fields every message has. */
export interface LiveMessageBase {
  /** Unique per message; the platform may push one twice, so handlers dedupe on it. */
  msg_id: string;
  /** The viewer's openid in this mini-program, encrypted. */
  sec_openid: string;
  avatar_url: string;
  nickname: string;
  /** When the viewer acted, in milliseconds since the epoch. */
  timestamp: number;
}
export interface LiveComment extends LiveMessageBase {
  content: string;
}
export interface LiveGift extends LiveMessageBase {
  sec_gift_id: string;
  gift_num: number;
  /** The gift's total value in douyin coins (fen), the platform's `gift_value`. */
  gift_value: number;
  /** True for the debug gifts of the platform's self-test tool. */
  test: boolean;
  /** The guest the gift went to, when it went to one (multi-guest rooms); empty otherwise. */
  audience_sec_open_id: string;
}
export interface LiveLike extends LiveMessageBase {
  like_num: number;
}
export interface LiveFansclub extends LiveMessageBase {
  /** 1 = level up, 2 = joined the fans club. */
  fansclub_reason_type: number;
  fansclub_level: number;
}
/** A message of each type. */
export interface LiveMessageOf {
  live_comment: LiveComment;
  live_gift: LiveGift;
  live_like: LiveLike;
  live_fansclub: LiveFansclub;
}
export type LiveMessage = LiveMessageOf[LiveMsgType];

type FieldKind = 'string' | 'integer' | 'boolean';

/** Field → kind, per type, in the order the platform documents them. */
export const LIVE_FIELDS: Readonly<Record<LiveMsgType, Readonly<Record<string, FieldKind>>>> = {
  live_comment: {
    msg_id: 'string',
    sec_openid: 'string',
    content: 'string',
    avatar_url: 'string',
    nickname: 'string',
    timestamp: 'integer',
  },
  live_gift: {
    msg_id: 'string',
    sec_openid: 'string',
    sec_gift_id: 'string',
    gift_num: 'integer',
    gift_value: 'integer',
    avatar_url: 'string',
    nickname: 'string',
    timestamp: 'integer',
    test: 'boolean',
    audience_sec_open_id: 'string',
  },
  live_like: {
    msg_id: 'string',
    sec_openid: 'string',
    like_num: 'integer',
    avatar_url: 'string',
    nickname: 'string',
    timestamp: 'integer',
  },
  live_fansclub: {
    msg_id: 'string',
    sec_openid: 'string',
    avatar_url: 'string',
    nickname: 'string',
    timestamp: 'integer',
    fansclub_reason_type: 'integer',
    fansclub_level: 'integer',
  },
};

/** The values a missing field gets, besides msg_id and timestamp. */
const DEFAULTS: Readonly<Record<LiveMsgType, Readonly<Record<string, unknown>>>> = {
  live_comment: { content: '666' },
  live_gift: { sec_gift_id: 'dev-gift', gift_num: 1, gift_value: 1, test: false, audience_sec_open_id: '' },
  live_like: { like_num: 1 },
  live_fansclub: { fansclub_reason_type: 2, fansclub_level: 1 },
};

/**
 * True when `value` is one of the four message types.
 * @example isLiveMsgType('live_gift') // true
 */
export function isLiveMsgType(value: unknown): value is LiveMsgType {
  return typeof value === 'string' && (LIVE_MSG_TYPES as readonly string[]).includes(value);
}

/** Makes msg_ids unique in one process: a time part and a counter. */
export class MsgIds {
  #counter = 0;
  readonly #prefix = `${Date.now().toString(36)}${Math.floor(Math.random() * 0x10000).toString(36)}`;
  next(): string {
    this.#counter += 1;
    return `${this.#prefix}-${this.#counter}`;
  }
}

function checkField(type: LiveMsgType, index: number, key: string, value: unknown): void {
  const kind = LIVE_FIELDS[type][key];
  if (kind === undefined)
    throw platformError(
      'PLATFORM_LIVE_BAD_MESSAGE',
      type,
      index,
      `${key} is not a field of ${type}; its fields are ${Object.keys(LIVE_FIELDS[type]).join(', ')}`,
    );
  const ok =
    kind === 'string'
      ? typeof value === 'string'
      : kind === 'boolean'
        ? typeof value === 'boolean'
        : typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
  if (!ok)
    throw platformError(
      'PLATFORM_LIVE_BAD_MESSAGE',
      type,
      index,
      `${key} must be ${kind === 'integer' ? 'a whole number of 0 or more' : `a ${kind}`}, got ${JSON.stringify(value)}`,
    );
}

/** What `fillMessages` needs besides the partial messages. */
export interface FillOptions {
  ids: MsgIds;
  /** @default Date.now() */
  now?: number;
  /** The viewer a message without sec_openid comes from. @default 'viewer-<n>' */
  viewer?: string;
}

/**
 * Whole messages of `type` from partial ones (an object or an array of objects). A `msg_id`
 * given twice in one call, or a field of the wrong type, throws `PLATFORM_LIVE_BAD_MESSAGE`.
 * @example fillMessages('live_comment', { content: 'hi' }, { ids }) // [{ msg_id, sec_openid, content: 'hi', ... }]
 */
export function fillMessages<T extends LiveMsgType>(
  type: T,
  partial: unknown,
  options: FillOptions,
): LiveMessageOf[T][] {
  const list = Array.isArray(partial) ? partial : [partial ?? {}];
  if (list.length === 0)
    throw platformError('PLATFORM_LIVE_BAD_MESSAGE', type, 0, 'the array is empty; send at least one message');
  const now = options.now ?? Date.now();
  const seen = new Set<string>();
  return list.map((item, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw platformError(
        'PLATFORM_LIVE_BAD_MESSAGE',
        type,
        index,
        `must be an object such as { "content": "hi" }, got ${JSON.stringify(item)}`,
      );
    for (const [key, value] of Object.entries(item)) checkField(type, index, key, value);
    const given = item as Record<string, unknown>;
    const msgId = (given['msg_id'] as string | undefined) ?? options.ids.next();
    if (seen.has(msgId))
      throw platformError('PLATFORM_LIVE_BAD_MESSAGE', type, index, `msg_id ${JSON.stringify(msgId)} is given twice`);
    seen.add(msgId);
    const viewer = (given['sec_openid'] as string | undefined) ?? options.viewer ?? `viewer-${(index % 8) + 1}`;
    return {
      msg_id: msgId,
      sec_openid: viewer,
      avatar_url: `https://p3-webcast.douyinpic.com/img/webcast/${encodeURIComponent(viewer)}.png`,
      nickname: viewer,
      timestamp: now,
      ...DEFAULTS[type],
      ...given,
      // The gift's value follows its count unless given: one fen per gift.
      ...(type === 'live_gift' && given['gift_value'] === undefined
        ? { gift_value: ((given['gift_num'] as number | undefined) ?? 1) * 1 }
        : {}),
    } as unknown as LiveMessageOf[T];
  });
}
