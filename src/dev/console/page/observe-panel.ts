/**
 * The console's metrics: a table of the counters that `${CLOUDFN_PREFIX}/metrics` serves (requests by
 * function and status, mean time, in flight, event-loop delay), refreshed after requests; and
 * the Timers panel (timers-panel.ts) drawn and redrawn when the functions change.
 */
import { API, PREFIX } from './api.js';
import { byId, h, replace } from './dom.js';
import { renderTimers } from './timers-panel.js';
import type { ScheduledFunction, TimersMeta } from '../../../schedule/protocol.js';
import type { ConsoleMeta } from '../protocol.js';

const METRICS = `${PREFIX}/metrics`;
const METRICS_OFF = 'Metrics are off: npm install prom-client to count requests here.';

/** One sample line: `name{labels} value`. */
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:\\.|[^"\\])*)"/g;

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Reads the sample lines of Prometheus text (comments skipped). */
export function parseSamples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line);
    if (m === null) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (m[2] ?? '').matchAll(LABEL)) labels[key!] = value!.replace(/\\(.)/g, '$1');
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

function renderMetrics(samples: Sample[]): void {
  const rows = new Map<string, { fn: string; status: string; count: number; sum: number }>();
  for (const s of samples) {
    const key = `${s.labels['function']}\u0000${s.labels['status']}`;
    if (s.name === 'cloudfn_request_duration_seconds_count' || s.name === 'cloudfn_request_duration_seconds_sum') {
      const row = rows.get(key) ?? {
        fn: s.labels['function'] ?? '',
        status: s.labels['status'] ?? '',
        count: 0,
        sum: 0,
      };
      if (s.name.endsWith('_count')) row.count = s.value;
      else row.sum = s.value;
      rows.set(key, row);
    }
  }
  const one = (name: string): number => samples.find((s) => s.name === name)?.value ?? 0;
  const sorted = [...rows.values()].sort((a, b) => a.fn.localeCompare(b.fn) || a.status.localeCompare(b.status));
  replace(
    byId('metrics'),
    sorted.length === 0
      ? h('p', { class: 'muted empty' }, 'No requests counted yet.')
      : h(
          'table',
          { class: 'metrics-table' },
          h('tr', {}, h('th', {}, 'function'), h('th', {}, 'status'), h('th', {}, 'count'), h('th', {}, 'mean')),
          ...sorted.map((row) =>
            h(
              'tr',
              { class: Number(row.status) >= 500 ? 'bad' : Number(row.status) >= 400 ? 'warn' : '' },
              h('td', {}, row.fn === '' ? '(none)' : row.fn),
              h('td', {}, row.status),
              h('td', {}, row.count),
              h('td', {}, row.count === 0 ? '' : `${((row.sum / row.count) * 1000).toFixed(1)} ms`),
            ),
          ),
        ),
    h(
      'p',
      { class: 'muted' },
      `in flight ${one('cloudfn_requests_in_flight')} · timeouts ${sum(samples, 'cloudfn_timeouts_total')} · disconnects ${sum(samples, 'cloudfn_client_disconnects_total')} · event loop p99 ${(one('cloudfn_event_loop_delay_p99_seconds') * 1000).toFixed(1)} ms`,
    ),
  );
}

function sum(samples: Sample[], name: string): number {
  return samples.filter((s) => s.name === name).reduce((total, s) => total + s.value, 0);
}

/** What main.ts tells the panel. */
export interface ObservePanel {
  /** A request finished: the counters changed. */
  requestSeen(): void;
  /** The functions changed: their schedules may have. */
  functionsChanged(): void;
}

/**
 * Starts the panel: draws the timers and the metrics, and keeps them current.
 * @example const panel = startObservePanel(meta.schedules ?? [])
 */
export function startObservePanel(schedules: ScheduledFunction[]): ObservePanel {
  renderTimers(schedules);
  let pending = false;
  let off = false;
  const refresh = (): void => {
    pending = false;
    if (off) return;
    fetch(METRICS)
      .then((res) => {
        // 404: the dev server counts nothing, prom-client (an optional peer) not being installed.
        if (res.status === 404) {
          off = true;
          replace(byId('metrics'), h('p', { class: 'muted' }, METRICS_OFF));
          return undefined;
        }
        return res.ok ? res.text() : Promise.reject(new Error(`${METRICS} answered ${res.status}`));
      })
      .then(
        (text) => {
          if (text !== undefined) renderMetrics(parseSamples(text));
        },
        (error: unknown) => replace(byId('metrics'), h('p', { class: 'problem' }, (error as Error).message)),
      );
  };
  refresh();
  return {
    requestSeen() {
      // A burst of requests makes one scrape, a quarter second after it.
      if (pending) return;
      pending = true;
      setTimeout(refresh, 250);
    },
    functionsChanged() {
      fetch(`${API}/functions`)
        .then((res) => res.json() as Promise<Partial<ConsoleMeta>>)
        .then(
          (meta) => renderTimers(schedulesOf(meta)),
          () => undefined,
        );
    },
  };
}

/** The timers' part of the function list's answer (their panel's `meta`), or none. */
export function schedulesOf(meta: Partial<ConsoleMeta>): ScheduledFunction[] {
  return (meta as Partial<TimersMeta>).schedules ?? [];
}
