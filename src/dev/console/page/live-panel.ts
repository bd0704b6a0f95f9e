/**
 * The console's Live room panel: act as a live room's viewers. Start (or stop) a room's four
 * data tasks with the platform's task calls, then send a comment, a gift or likes as a viewer:
 * each is one push to `liveData.path` through `POST ${CLOUDFN_PREFIX}/live/<roomid>/<msg_type>`, and the
 * panel shows the function's status, logid and body (the push also shows in the request list).
 * Every room with tasks is listed with its anchor; picking one sends into that room. A service
 * without `liveData.path` has nowhere to push: the panel is one grey line saying so.
 */
import { PREFIX } from './api.js';
import { byId, h, replace } from './dom.js';
import type { LivePushAnswer, LiveRoomsAnswer } from '../../../platform/live/protocol.js';
import type { ErrorAnswer } from '../protocol.js';

const LIVE = `${PREFIX}/live`;
const TYPES = ['live_comment', 'live_gift', 'live_like', 'live_fansclub'] as const;

function input(name: string, value: string, size: number, title: string): HTMLInputElement {
  return h('input', { name, value, size, title, 'aria-label': title, class: 'live-input' });
}

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** What main.ts tells the panel. */
export interface LivePanel {
  /** Redraws the tasks (after a request: start_game may have started some). */
  refresh(): void;
}

/**
 * Draws the panel in `#live` and keeps its task list current.
 * @example const live = startLivePanel(meta.devUser.appid)
 */
export function startLivePanel(appid: string): LivePanel {
  const room = input('roomid', '7001', 8, 'room id');
  const viewer = input('viewer', 'viewer-1', 10, "the viewer's sec_openid");
  const comment = input('content', '666', 14, 'comment text');
  const gift = input('gift', 'dev-gift', 10, 'sec_gift_id');
  const giftNum = input('gift_num', '1', 3, 'gift_num');
  const likes = input('like_num', '10', 3, 'like_num');
  const tasks = h('ul', { class: 'live-tasks' });
  const result = h('span', { class: 'muted live-result' });
  const body = h('pre', { class: 'live-body', hidden: true });
  const controls = h('div', { class: 'live-controls' });
  const absent = h('p', { class: 'muted live-absent', hidden: true });
  /** Shows the controls, or only `why` the panel does not apply. */
  const applies = (why: string | undefined): void => {
    controls.hidden = why !== undefined;
    absent.hidden = why === undefined;
    absent.textContent = why ?? '';
  };

  const refresh = async (): Promise<void> => {
    try {
      const res = await fetch(`${LIVE}/rooms`);
      if (res.status === 404) return applies('no live-room simulator in this dev server');
      const answer = (await res.json()) as LiveRoomsAnswer;
      if (answer.path === null)
        return applies('not a live-room service: no liveData.path in its cloudfn.config.json (docs/live-room.md)');
      applies(undefined);
      const live = answer.rooms.filter((r) => r.tasks.some((t) => t.running));
      replace(
        tasks,
        h('li', { class: 'muted' }, `pushes go to ${answer.path}`),
        ...(live.length === 0
          ? [h('li', { class: 'muted' }, 'no task running: start the room, or call your start_game')]
          : live.map((r) =>
              h(
                'li',
                { 'data-room': r.roomid, class: r.roomid === room.value ? 'live-picked' : '' },
                h('button', { class: 'live-pick', onclick: () => pick(r.roomid) }, r.roomid),
                ` anchor ${r.anchor} (from ${r.anchorFrom}) · `,
                ...r.tasks
                  .filter((t) => t.running)
                  .map((t) => h('span', { 'data-task': `${t.roomid} ${t.msgType}` }, `${t.msgType} `)),
              ),
            )),
      );
    } catch (error) {
      applies(undefined);
      replace(tasks, h('li', { class: 'problem' }, (error as Error).message));
    }
  };

  const pick = (roomid: string): void => {
    room.value = roomid;
    void refresh();
  };

  const tasksCall = async (action: 'start' | 'stop'): Promise<void> => {
    for (const msgType of TYPES) {
      const res = await fetch(`${LIVE}/api/live_data/task/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ roomid: room.value, appid, msg_type: msgType }),
      });
      const answer = (await res.json()) as { err_no: number; err_msg: string };
      if (answer.err_no !== 0) {
        result.textContent = answer.err_msg;
        break;
      }
    }
    await refresh();
  };

  const send = async (msgType: string, message: Record<string, unknown>): Promise<void> => {
    result.textContent = 'sending…';
    body.hidden = true;
    try {
      const res = await fetch(`${LIVE}/${encodeURIComponent(room.value)}/${msgType}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sec_openid: viewer.value, nickname: viewer.value, ...message }),
      });
      const answer = (await res.json()) as Partial<LivePushAnswer & ErrorAnswer>;
      if (answer.error !== undefined) {
        result.textContent = answer.error.message;
        return;
      }
      result.textContent = `${msgType}: answered ${answer.status} (logid ${answer.logid})`;
      if (answer.body !== undefined && answer.body !== '') {
        body.textContent = pretty(answer.body);
        body.hidden = false;
      }
    } catch (error) {
      result.textContent = (error as Error).message;
    }
  };
  const token = async (): Promise<void> => {
    try {
      const res = await fetch(`${LIVE}/${encodeURIComponent(room.value)}/token`, { method: 'POST', body: '{}' });
      const answer = (await res.json()) as Partial<{ token: string; anchor_open_id: string } & ErrorAnswer>;
      result.textContent =
        answer.error?.message ??
        `token of room ${room.value} (anchor ${answer.anchor_open_id}, 30 min): ${answer.token}`;
    } catch (error) {
      result.textContent = (error as Error).message;
    }
  };
  const whole = (field: HTMLInputElement): number => Math.max(0, Math.floor(Number(field.value) || 0));

  replace(byId('live'), absent, controls);
  replace(
    controls,
    h(
      'div',
      { class: 'live-row' },
      room,
      h('button', { class: 'live-start', onclick: () => void tasksCall('start') }, 'start'),
      h('button', { class: 'live-stop', onclick: () => void tasksCall('stop') }, 'stop'),
      h(
        'button',
        { class: 'live-token', title: 'a token webcastmate/info trades for this room', onclick: () => void token() },
        'token',
      ),
    ),
    tasks,
    h('div', { class: 'live-row' }, 'as ', viewer),
    h(
      'div',
      { class: 'live-row' },
      comment,
      h(
        'button',
        { class: 'live-comment', onclick: () => void send('live_comment', { content: comment.value }) },
        'comment',
      ),
    ),
    h(
      'div',
      { class: 'live-row' },
      gift,
      giftNum,
      h(
        'button',
        {
          class: 'live-gift',
          onclick: () => void send('live_gift', { sec_gift_id: gift.value, gift_num: whole(giftNum) }),
        },
        'gift',
      ),
    ),
    h(
      'div',
      { class: 'live-row' },
      likes,
      h('button', { class: 'live-like', onclick: () => void send('live_like', { like_num: whole(likes) }) }, 'like'),
    ),
    result,
    body,
  );
  void refresh();
  let pending = false;
  return {
    refresh() {
      if (pending) return;
      pending = true;
      setTimeout(() => {
        pending = false;
        void refresh();
      }, 250);
    },
  };
}
