/**
 * What the live-room simulator answers the dev console under `${CLOUDFN_PREFIX}/live/` (dev-routes.ts):
 * its rooms and tasks, and one push. Types only, with no Node types: the console page's browser
 * build imports them too.
 */

/** One live room data task, as `GET ${CLOUDFN_PREFIX}/live/rooms` lists it (rooms.ts). */
export interface LiveTaskInfo {
  roomid: string;
  msgType: string;
  taskId: string;
  running: boolean;
}

/** `GET ${CLOUDFN_PREFIX}/live/rooms`: the anchor, the data path and the tasks. */
export interface LiveRoomsAnswer {
  anchor: string;
  path: string | null;
  tasks: LiveTaskInfo[];
  /** Each room with a task or a known anchor: its anchor, where that came from, its tasks. */
  rooms: { roomid: string; anchor: string; anchorFrom: string; tasks: LiveTaskInfo[] }[];
  /** The scripted traffic runs, so far. */
  traffic: unknown[];
}

/** `POST ${CLOUDFN_PREFIX}/live/<roomid>/<msg_type>`: one push to the data path and the function's answer. */
export interface LivePushAnswer {
  roomid: string;
  msg_type: string;
  messages: unknown[];
  status: number;
  logid: string;
  body: string;
}
