// Shared by the functions (the leading '_' keeps it from being a function): the message types
// this game asks the platform for, the call that starts or stops a room's data task of one type,
// and the room a call comes from (the gateway's X-Room-ID and X-Anchor-OpenID headers).
import { dySDK } from '@open-dy/node-server-sdk';
import type { Service } from 'cloudfn';

export const MESSAGE_TYPES = ['live_comment', 'live_gift', 'live_like', 'live_fansclub'] as const;

const TASK_URL = 'https://webcast.bytedance.com/api/live_data/task/';

/** What the platform answers a task call. */
export interface TaskAnswer {
  err_no?: number;
  err_msg?: string;
  data?: { task_id?: string };
}

/** The room of the call, or undefined when it did not come from a live room. */
export function roomOf(service: Service): { roomid: string; appid: string; anchor: string | undefined } | undefined {
  const { appId, roomId, anchorOpenId } = dySDK.context(service).getContext();
  if (roomId === undefined) return undefined;
  return { roomid: roomId, appid: appId ?? '', anchor: anchorOpenId };
}

/** Starts (or stops) the room's task of one message type: the platform's answer, or the error's text. */
export async function task(
  service: Service,
  action: 'start' | 'stop',
  room: { roomid: string; appid: string },
  msgType: string,
): Promise<TaskAnswer | string> {
  try {
    return (await dySDK.context(service).openApiInvoke({
      url: TASK_URL + action,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      data: { roomid: room.roomid, appid: room.appid, msg_type: msgType },
    })) as TaskAnswer;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
