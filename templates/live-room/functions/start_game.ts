// The anchor's game client calls this when a round begins: the room and the anchor come from
// the gateway's headers, and the room's four data tasks are started, so that its comments,
// gifts, likes and fans-club events reach live_data_callback. A task that fails to start is
// logged and reported; the others still start. Not offered by `cloudfn client`: a mini-program
// does not start rounds.
import { HttpError, type Service } from 'cloudfn';
import { MESSAGE_TYPES, roomOf, task } from './_live.js';

export const config = { client: false };

export default async function startGame(_params: unknown, service: Service) {
  const room = roomOf(service);
  if (room === undefined) throw new HttpError(400, 'no live room: call start_game from the live room (X-Room-ID)');
  const started: Record<string, string> = {};
  const failed: Record<string, string> = {};
  for (const msgType of MESSAGE_TYPES) {
    const answer = await task(service, 'start', room, msgType);
    if (typeof answer === 'object' && answer.err_no === 0) started[msgType] = answer.data?.task_id ?? '';
    else failed[msgType] = typeof answer === 'string' ? answer : (answer.err_msg ?? 'unknown error');
  }
  service.log({ room: room.roomid, anchor: room.anchor, started: Object.keys(started), failed });
  return { room: room.roomid, anchor: room.anchor ?? null, started, failed };
}
