/**
 * The request metrics of one app, in Prometheus form: counters, the duration histogram and the
 * gauges read at scrape time. This module (and prom-client with it) is loaded only when metrics
 * are on (`--metrics`, `CLOUDFN_METRICS`; see metrics/index.ts). One registry per app, never
 * prom-client's global one, so two apps in a process (tests, embedding) count apart.
 */
import cluster from 'node:cluster';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import * as Prom from 'prom-client';
import { joinCluster } from './cluster.js';

/** What the gauges read of the app at scrape time. */
export interface MetricsSource {
  /** Requests answered-not-yet plus `service.waitUntil` work in flight. */
  readonly inflight: number;
  /** The memory budget (admission/memory-budget.ts). */
  readonly memory?: {
    readonly held: number;
    readonly limit: number;
    readonly refused: number;
    readonly waiting?: number;
  };
  /** The connection limit (admission/connection-limit.ts). */
  readonly connections?: {
    readonly open: number;
    readonly limit: number;
    readonly refused: number;
    readonly sendTimeouts: number;
  };
  /** Pressure and the shedding actions (admission/overload.ts). */
  readonly overload?: {
    readonly active: boolean;
    readonly episodes: number;
    readonly counts: Readonly<Record<string, number>>;
  };
}

/** Seconds: from 1 ms to 60 s, the default function timeout. */
const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The metrics of one app. `finished` is the only call on the request path; everything else
 * runs when a scraper asks.
 */
export class RequestMetrics {
  /** The registry holding this app's series (the cluster aggregation reads it). */
  readonly registry: Prom.Registry;
  readonly #requests: Prom.Counter<'function' | 'status'>;
  readonly #errors: Prom.Counter<'function' | 'status'>;
  readonly #duration: Prom.Histogram<'function' | 'status'>;
  readonly #timeouts: Prom.Counter<'function'>;
  readonly #disconnects: Prom.Counter<'function'>;
  readonly #tooLarge: Prom.Counter<'function'>;
  readonly #coldStart: Prom.Gauge;
  readonly #loop: IntervalHistogram;

  constructor(prom: typeof Prom, source: MetricsSource) {
    const registers = [(this.registry = new prom.Registry())];
    this.#requests = new prom.Counter({
      name: 'cloudfn_requests_total',
      help: 'Requests answered, by function and status (function is empty when none matched).',
      labelNames: ['function', 'status'],
      registers,
    });
    this.#errors = new prom.Counter({
      name: 'cloudfn_request_errors_total',
      help: 'Requests answered with a 5xx status, by function and status.',
      labelNames: ['function', 'status'],
      registers,
    });
    this.#duration = new prom.Histogram({
      name: 'cloudfn_request_duration_seconds',
      help: 'Time from the request to the end of its response, as the request line reports it.',
      labelNames: ['function', 'status'],
      buckets: BUCKETS,
      registers,
    });
    new prom.Gauge({
      name: 'cloudfn_requests_in_flight',
      help: 'Requests not yet answered, plus service.waitUntil work not yet settled.',
      registers,
      collect() {
        this.set(source.inflight);
      },
    });
    this.#timeouts = new prom.Counter({
      name: 'cloudfn_timeouts_total',
      help: 'Calls answered 504 because the function ran past its timeout.',
      labelNames: ['function'],
      registers,
    });
    this.#disconnects = new prom.Counter({
      name: 'cloudfn_client_disconnects_total',
      help: 'Requests whose client went away before the answer (logged as 499).',
      labelNames: ['function'],
      registers,
    });
    this.#tooLarge = new prom.Counter({
      name: 'cloudfn_body_limit_refusals_total',
      help: 'Requests refused 413 by a body, multipart or parameter limit.',
      labelNames: ['function'],
      registers,
    });
    // The memory bounds (docs/configuration.md#memory-bounds), read at scrape time.
    const gauge = (name: string, help: string, read: () => number | undefined, aggregator?: 'max'): void => {
      new prom.Gauge({
        name,
        help,
        registers,
        ...(aggregator === undefined ? {} : { aggregator }),
        collect() {
          this.set(read() ?? 0);
        },
      });
    };
    // Counts kept by the app, exposed as counters: set from the app's count at each scrape.
    const counter = (name: string, help: string, read: () => number | undefined): void => {
      new prom.Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read() ?? 0);
        },
      });
    };
    gauge(
      'cloudfn_memory_held_bytes',
      'Bytes of request bodies held and answers not yet sent.',
      () => source.memory?.held,
    );
    gauge('cloudfn_memory_budget_bytes', 'The memoryBudget option (0 is no limit).', () => source.memory?.limit, 'max');
    counter(
      'cloudfn_memory_refusals_total',
      'Requests refused 503 CLOUDFN_OVERLOADED: the memory budget was spent.',
      () => source.memory?.refused,
    );
    gauge('cloudfn_connections_open', 'Connections open now.', () => source.connections?.open);
    gauge(
      'cloudfn_connections_max',
      'The maxConnections option (0 is no limit).',
      () => source.connections?.limit,
      'max',
    );
    counter(
      'cloudfn_connection_refusals_total',
      'Requests refused 503 CLOUDFN_TOO_MANY_CONNECTIONS: their connection was over maxConnections.',
      () => source.connections?.refused,
    );
    counter(
      'cloudfn_send_timeouts_total',
      'Connections closed because an answer waited past sendTimeout for a client that did not read it.',
      () => source.connections?.sendTimeouts,
    );
    // Shedding under load (docs/configuration.md#under-load).
    gauge(
      'cloudfn_memory_waiting',
      'Request bodies waiting, unread, for the memory budget.',
      () => source.memory?.waiting,
    );
    gauge('cloudfn_overload_active', '1 while connections or memory are past overloadThreshold.', () =>
      source.overload === undefined ? undefined : Number(source.overload.active),
    );
    counter(
      'cloudfn_overload_episodes_total',
      'Times connections or memory passed overloadThreshold.',
      () => source.overload?.episodes,
    );
    const shed: [string, string, string][] = [
      ['cloudfn_idle_connections_shed_total', 'Idle keep-alive connections closed to admit a new one.', 'idleShed'],
      [
        'cloudfn_headless_connections_shed_total',
        'Connections without a whole request head closed to admit a new one.',
        'headlessShed',
      ],
      [
        'cloudfn_stalled_answers_cut_total',
        'Answers their clients did not read, cut to make room in the memory budget for a new request.',
        'stalledCut',
      ],
      ['cloudfn_memory_waits_total', 'Request bodies that waited, unread, for the memory budget.', 'bodyWaited'],
    ];
    for (const [name, help, action] of shed) counter(name, help, () => source.overload?.counts[action]);
    this.#coldStart = new prom.Gauge({
      name: 'cloudfn_cold_start_seconds',
      help: 'Time from the process start to the server listening.',
      registers,
      aggregator: 'max',
    });
    // The event loop's delay since the previous scrape (reset after each), sampled every 10 ms.
    const loop = (this.#loop = monitorEventLoopDelay({ resolution: 10 }));
    loop.enable();
    const delay = (name: string, help: string, read: (h: IntervalHistogram) => number, reset = false): void => {
      new prom.Gauge({
        name,
        help,
        registers,
        aggregator: 'max',
        collect() {
          // The histogram is empty until its first sample (max 0, min 2^63): report 0 then.
          this.set(loop.count === 0 ? 0 : read(loop) / 1e9);
          if (reset) loop.reset();
        },
      });
    };
    delay('cloudfn_event_loop_delay_p50_seconds', 'Median event-loop delay since the previous scrape.', (h) =>
      h.percentile(50),
    );
    delay('cloudfn_event_loop_delay_p99_seconds', '99th percentile event-loop delay since the previous scrape.', (h) =>
      h.percentile(99),
    );
    // Registered last: collect() runs in registration order, so the reset follows the reads.
    delay(
      'cloudfn_event_loop_delay_max_seconds',
      'Longest event-loop delay since the previous scrape.',
      (h) => h.max,
      true,
    );
  }

  /**
   * Counts a finished request: called from `App.requestFinished`, once per request.
   * @param abortReason `timeout` when the function ran past its timeout
   */
  finished(fn: string, status: number, durationMs: number, abortReason: string | undefined): void {
    const code = statusLabel(status);
    this.#requests.inc({ function: fn, status: code });
    this.#duration.observe({ function: fn, status: code }, durationMs / 1000);
    if (status >= 500) {
      this.#errors.inc({ function: fn, status: code });
      if (status === 504 && abortReason === 'timeout') this.#timeouts.inc({ function: fn });
    } else if (status === 499) this.#disconnects.inc({ function: fn });
    else if (status === 413) this.#tooLarge.inc({ function: fn });
  }

  /** Records the time from the process start to listening. */
  listening(seconds: number): void {
    this.#coldStart.set(seconds);
  }

  /** The Prometheus text of this app's series. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The Content-Type of `text()`. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Stops sampling the event loop (the app shut down). */
  close(): void {
    this.#loop.disable();
  }
}

/** Status labels, built once: a request pays no number-to-string conversion. */
const STATUS_LABELS: string[] = Array.from({ length: 600 }, (_, i) => String(i));

function statusLabel(status: number): string {
  return STATUS_LABELS[status] ?? String(status);
}

/**
 * Creates the metrics of an app.
 * @example app.useMetrics(loadMetrics(app))
 */
export function loadMetrics(source: MetricsSource): RequestMetrics {
  const metrics = new RequestMetrics(Prom, source);
  // A worker of `--workers`: the primary sums the workers' series (metrics/cluster.ts).
  if (cluster.isWorker) joinCluster(Prom, metrics.registry);
  return metrics;
}
