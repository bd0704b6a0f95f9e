/**
 * The platform's live-room interfaces the simulator answers (the live-data task calls and the
 * token trade `webcastmate/info`, whose token names the room's anchor), from one request to one
 * answer as text, so the dev server's routes (and its webcast hosts, which `cloudfn/testing`'s
 * `startLiveRooms` answers in memory and the SDK stand-in's `openApiInvoke` reaches through the
 * host table) answer alike.
 */
import type { LiveRooms } from './rooms.js';
import { answerTaskCall, callerRoom } from './task-api.js';
import type { LiveTokens } from './tokens.js';
import { INFO_PATH, type LiveApiAnswer, type LiveApiCall } from '../sdk/live-calls.js';

/**
 * Answers a task call or a token trade; undefined for any other path. A trade makes the token's
 * anchor the room's: a game started from a token (no `X-Room-ID`) pushes to that anchor.
 * @example answerLiveApi({ rooms, tokens }, { method: 'POST', path: '/api/live_data/task/start', query, headers, body })
 */
export function answerLiveApi(
  ctx: { rooms: LiveRooms; tokens: LiveTokens },
  call: LiveApiCall,
): LiveApiAnswer | undefined {
  if (call.path.replace(/\/+$/, '') === INFO_PATH) {
    const { traded, ...answer } = ctx.tokens.answer(call);
    if (traded !== undefined) ctx.rooms.claimFromToken(traded.roomid, traded.anchorOpenid);
    return answer;
  }
  const answer = answerTaskCall(ctx.rooms, { ...call, caller: callerRoom(call.headers) });
  if (answer === undefined) return undefined;
  return { status: answer.status, text: JSON.stringify(answer.body), logid: answer.body.logid };
}
