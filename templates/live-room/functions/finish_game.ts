// The anchor's game client calls this when a round ends: the room's four data tasks are
// stopped, so the platform pushes no more of its messages, and what each stop answered is
// returned. Not offered by `cloudfn client`, as start_game.
import { HttpError, type Service } from 'cloudfn';
import { MESSAGE_TYPES, roomOf, task } from './_live.js';

export const config = { client: false };

export default async function finishGame(_params: unknown, service: Service) {
  const room = roomOf(service);
  if (room === undefined) throw new HttpError(400, 'no live room: call finish_game from the live room (X-Room-ID)');
  const stopped: string[] = [];
  const failed: Record<string, string> = {};
  for (const msgType of MESSAGE_TYPES) {
    const answer = await task(service, 'stop', room, msgType);
    if (typeof answer === 'object' && answer.err_no === 0) stopped.push(msgType);
    else failed[msgType] = typeof answer === 'string' ? answer : (answer.err_msg ?? 'unknown error');
  }
  return { room: room.roomid, stopped, failed };
}
