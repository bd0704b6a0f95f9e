/**
 * `startLiveRooms`: the platform's live-room interfaces answered in process, so a function that
 * starts a room's tasks (`start_game`) or trades a token (`webcastmate/info`) runs under `invoke`
 * without a dev server. While open, the webcast hosts are its server's (a server in memory with
 * the live rooms' route as the hosts' answer, in the process's host table), which the SDK
 * stand-in's `openApiInvoke` of `webcast.bytedance.com` (or the intranet host) reaches; the
 * rooms, their tasks and anchors can be read, and tokens minted. Messages are pushed with
 * `invokeLiveData`.
 */
import { WEBCAST_PUBLIC_HOST } from '../../runtime/intranet/hosts.js';
import { serveInMemory } from '../../runtime/serve/in-memory.js';
import { liveRoute } from '../platform/live/dev-routes.js';
import type { LiveDataConfig } from '../platform/live/config.js';
import { type LiveRoomInfo, LiveRooms, type LiveTask } from '../platform/live/rooms.js';
import { LiveTokens } from '../platform/live/tokens.js';

/** Options of `startLiveRooms`. */
export interface TestLiveRoomsOptions {
  /** The project's `liveData` (its `anchorOpenid` is the anchor of a room that never said). @default { path: '/live_data_callback' } */
  liveData?: LiveDataConfig;
  /** The anchor of a room that never said, without `liveData.anchorOpenid`. @default 'dev-openid' */
  defaultAnchor?: string;
}

/** An open in-process simulator. */
export interface TestLiveRooms {
  /** The host its calls are answered for: `https://webcast.bytedance.com` (and the intranet one). */
  url: string;
  /** Every task, running or stopped. */
  tasks(): LiveTask[];
  /** Every room with a task or a known anchor: its anchor, where that came from, its tasks. */
  rooms(): LiveRoomInfo[];
  /** The task's status as `task/get` answers it: 1 no such task, 2 stopped, 3 running. */
  status(roomid: string, msgType: LiveTask['msgType']): number;
  /** A token `webcastmate/info` trades for the room (30 minutes). */
  mintToken(roomid: string, who?: { anchorOpenid?: string; nickName?: string; avatarUrl?: string }): string;
  /** Gives the webcast hosts back. */
  close(): void;
}

/**
 * Answers the live-data task calls and `webcastmate/info` in process until `close()`.
 * @example
 * const live = startLiveRooms();
 * const res = await invoke('functions/start_game.ts', { user: { openid: 'anchor-a', roomid: '7001', anchorOpenid: 'anchor-a' } });
 * expect(live.status('7001', 'live_comment')).toBe(3);
 * live.close();
 */
export function startLiveRooms(options: TestLiveRoomsOptions = {}): TestLiveRooms {
  const config = options.liveData ?? { path: '/live_data_callback' };
  const rooms = new LiveRooms({
    config: () => config,
    defaultAnchor: options.defaultAnchor ?? 'dev-openid',
    deliver: () =>
      Promise.reject(new Error('startLiveRooms does not push messages; use invokeLiveData to deliver them')),
  });
  const tokens = new LiveTokens();
  const route = liveRoute({ rooms, config: () => config, tokens });
  const stand = serveInMemory({ functions: [] }, [{ name: 'live', hosts: () => ({ webcast: route }) }]);
  return {
    url: `https://${WEBCAST_PUBLIC_HOST}`,
    tasks: () => rooms.tasks(),
    rooms: () => rooms.rooms(),
    status: (roomid, msgType) => rooms.status(roomid, msgType),
    mintToken: (roomid, who = {}) => {
      const anchor = who.anchorOpenid ?? rooms.anchor(roomid);
      return tokens.mint({
        roomid,
        anchorOpenid: anchor,
        nickName: who.nickName ?? anchor,
        avatarUrl: who.avatarUrl ?? '',
      }).token;
    },
    close: () => void stand.close(),
  };
}
