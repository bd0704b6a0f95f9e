/**
 * Bench-only: the parts of the request path that `test/bench/ablation.mjs` turns off, one at a
 * time, to measure what each costs against fastify and raw node:http on the same request
 * (docs/performance.md#the-ablation). Read here, once, from `CLOUDFN_BENCH_ABLATE`, which only
 * that bench sets. It is not a user option and is in no option table: a server run with it
 * answers without the parts it names (no request line, no limits, no trace, wrong headers).
 * Unset, every part is on and each check on the request path is one read of a false field.
 */

/** The parts, as `CLOUDFN_BENCH_ABLATE` names them (a comma-separated list, or `all`). */
export const ABLATION_PARTS = [
  /** The request line: building its text and writing it to the sink. */
  'log',
  /** Making a logid (a constant one is sent instead). */
  'logid',
  /** Reading `traceparent`, making the trace and span ids, and their fields in the request line. */
  'trace',
  /** The metrics and observers of a finished request. */
  'metrics',
  /** Removing the platform-set headers before the handler runs. */
  'strip',
  /** Connection and memory accounting, the pressure watch, the handler's timeout and close watch. */
  'admission',
  /** Parsing the query into params, reading the trigger header. */
  'parse',
  /** Building the service (the handler gets a shared empty object). */
  'exchange',
  /** The response's headers: none set by cloudfn, node adds its own Content-Length. */
  'headers',
  /** The router: the last match of the same path is reused. */
  'router',
] as const;

export type AblationPart = (typeof ABLATION_PARTS)[number];

/** One flag per part: true when that part is turned off. */
export type Ablation = Readonly<Record<AblationPart, boolean>>;

/**
 * Reads `CLOUDFN_BENCH_ABLATE`: empty or unset turns nothing off; an unknown name throws, so a
 * bench with a typo fails instead of measuring nothing.
 * @example readAblation('log,trace') // { log: true, trace: true, logid: false, ... }
 */
export function readAblation(value: string | undefined): Ablation {
  const names = new Set((value ?? '').split(',').map((name) => name.trim()));
  names.delete('');
  for (const name of names)
    if (name !== 'all' && !(ABLATION_PARTS as readonly string[]).includes(name))
      throw new Error(`CLOUDFN_BENCH_ABLATE (bench only): no part ${name}; use all or ${ABLATION_PARTS.join(', ')}`);
  return Object.freeze(
    Object.fromEntries(ABLATION_PARTS.map((part) => [part, names.has('all') || names.has(part)])) as Record<
      AblationPart,
      boolean
    >,
  );
}

/** The parts turned off in this process. */
export const ablation: Ablation = readAblation(process.env['CLOUDFN_BENCH_ABLATE']);
