/**
 * The console's Timers panel: each function with `config.schedule`, its cron, the params every
 * firing POSTs as its body, its next firing, and a "fire now" button that fires it through
 * `POST /_cloudfn/trigger/<function>` and shows the status, the logid and the body it answered
 * (or that it was cut at the firing limit).
 */
import { byId, h, replace } from './dom.js';
import type { ScheduledFunction, TriggerAnswer } from '../../../schedule/protocol.js';
import type { ErrorAnswer } from '../protocol.js';

const TRIGGER = '/_cloudfn/trigger/';

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
    timer.next === undefined ? '' : h('span', { class: 'muted' }, ` next ${new Date(timer.next).toLocaleTimeString()}`),
    h('span', { class: 'timer-params', title: 'the JSON body of every firing' }, params),
    result,
    body,
  );
}

/**
 * Draws the timers (the section hides when there are none).
 * @example renderTimers(meta.schedules ?? [])
 */
export function renderTimers(schedules: ScheduledFunction[]): void {
  byId('timers-section').hidden = schedules.length === 0;
  replace(byId('timers'), ...schedules.map(timerItem));
}
