/**
 * The console's Timers panel: each function with `config.schedule`, its cron, the params every
 * firing POSTs as its body, its next firing, and a "fire now" button that fires it through
 * `POST ${CLOUDFN_PREFIX}/trigger/<function>` and shows the status, the logid and the body it answered
 * (or that it was cut at the firing limit).
 */
import { PREFIX } from './api.js';
import { byId, h, replace } from './dom.js';
import type { ScheduledFunction, TriggerAnswer } from '../../../schedule/protocol.js';
import type { ErrorAnswer } from '../protocol.js';

const TRIGGER = `${PREFIX}/trigger/`;

/** The body as the function answered it, JSON indented when it is JSON. */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function timerItem(timer: ScheduledFunction): HTMLLIElement {
  const result = h('span', { class: 'muted timer-result' });
  const body = h('pre', { class: 'timer-body', hidden: true });
  const fire = async (): Promise<void> => {
    result.textContent = 'firing…';
    body.hidden = true;
    try {
      const res = await fetch(`${TRIGGER}${timer.name.split('/').map(encodeURIComponent).join('/')}`, {
        method: 'POST',
      });
      const answer = (await res.json()) as Partial<TriggerAnswer & ErrorAnswer>;
      if (answer.error !== undefined) {
        result.textContent = answer.error.message;
        return;
      }
      result.textContent =
        answer.cut === true
          ? `cut: no answer within the firing limit (logid ${answer.logid})`
          : `answered ${answer.status} (logid ${answer.logid})`;
      if (answer.body !== undefined && answer.body !== '') {
        body.textContent = pretty(answer.body);
        body.hidden = false;
      }
    } catch (error) {
      result.textContent = (error as Error).message;
    }
  };
  const params = JSON.stringify(timer.params ?? {});
  return h(
    'li',
    { 'data-timer': timer.name },
    h(
      'button',
      { class: 'fire', title: `fire ${timer.name} now, as its timer would`, onclick: () => void fire() },
      'fire now',
    ),
    ' ',
    h('strong', {}, timer.name),
    ' ',
    h('code', {}, timer.schedule),
    timer.next === undefined
      ? ''
      : h('span', { class: 'muted timer-next', title: timer.next }, ` next ${formatNext(new Date(timer.next))}`),
    h('span', { class: 'timer-params', title: 'the JSON body of every firing' }, params),
    result,
    body,
  );
}

/**
 * A firing's time with its zone, as this page's clock reads it (`14:05:00 GMT+8`), and its
 * date when it is not today: a bare local time reads as the server's zone, or as UTC, to
 * whoever compares it with the schedule. The ISO instant is the element's title.
 * @example formatNext(new Date('2026-12-06T06:05:00Z')) // '14:05:00 GMT+8' in Asia/Shanghai
 */
export function formatNext(at: Date, now = new Date()): string {
  const time = at.toLocaleTimeString(undefined, { hour12: false, timeZoneName: 'short' });
  return at.toDateString() === now.toDateString()
    ? time
    : `${at.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${time}`;
}

/**
 * Draws the timers (the section hides when there are none).
 * @example renderTimers(meta.schedules ?? [])
 */
export function renderTimers(schedules: ScheduledFunction[]): void {
  byId('timers-section').hidden = schedules.length === 0;
  replace(byId('timers'), ...schedules.map(timerItem));
}
