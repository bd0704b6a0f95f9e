/**
 * What the timers show on the dev console: the scheduled functions (in `GET
 * ${CLOUDFN_PREFIX}/api/functions`, as `schedules`) and one firing of the trigger endpoint. Types only,
 * with no Node types: the console page's browser build imports them too.
 */

/** A function with a `config.schedule` (scheduler.ts). */
export interface ScheduledFunction {
  name: string;
  schedule: string;
  /** The JSON body of every firing (`{}` for the string form). */
  params: unknown;
  /** The next firing, ISO 8601, or undefined when none is left (absent from the JSON then). */
  next: string | undefined;
}

/** What the timers add to `GET ${CLOUDFN_PREFIX}/api/functions`. */
export type TimersMeta = {
  /** The functions with a `config.schedule`, and their next firings. */
  schedules: ScheduledFunction[];
};

/** `POST ${CLOUDFN_PREFIX}/trigger/<function>`: one firing of a timer, as the function answered it. */
export interface TriggerAnswer {
  function: string;
  /** The status the function answered. */
  status: number;
  /** The logid of the firing's request line. */
  logid: string;
  /** The function's response body, as text. */
  body: string;
  /** True when the firing was cut at its limit (status 0, no body). */
  cut: boolean;
}
