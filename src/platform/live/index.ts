/**
 * The live-room simulator (this folder's public entry): the message types and their fields,
 * the push headers and signature, the rooms and their data tasks, the task calls, scripted
 * traffic and the dev server's `/_cloudfn/live/` routes.
 */
export { DEV_LIVE_SECRET, LIVE_DATA_KEYS, readLiveDataConfig } from './config.js';
export type { LiveDataConfig } from './config.js';
export { LIVE_PREFIX, liveHook } from './dev-routes.js';
export type { LiveRoutesContext } from './dev-routes.js';
export { fillMessages, isLiveMsgType, LIVE_FIELDS, LIVE_MSG_TYPES, MsgIds } from './messages.js';
export type {
  LiveComment,
  LiveFansclub,
  LiveGift,
  LiveLike,
  LiveMessage,
  LiveMessageOf,
  LiveMsgType,
} from './messages.js';
export { liveSignature, pushHeaders, SIGNED_HEADERS } from './push-headers.js';
export { LiveRooms, TASK_STATUS } from './rooms.js';
export type { DeliveryResult, LiveEvent, LivePush, LiveRoomsOptions, LiveTask, SendResult } from './rooms.js';
export { answerTaskCall, TASK_PATHS } from './task-api.js';
export { startTraffic, TRAFFIC_LIMITS } from './traffic.js';
export type { TrafficRun, TrafficTotals } from './traffic.js';
