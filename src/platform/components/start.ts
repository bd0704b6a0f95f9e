/**
 * Starting a project's components: each `true` becomes a local server (redis.ts, mysql.ts) with
 * its data under one folder (for `cloudfn dev`, `<project>/.cloudfn/components/`), each string
 * an existing server; the result is the platform's variables for all of them and one stop. When
 * one fails to start, those already started are stopped before the error is thrown.
 */
import { mysqlServer } from './mysql.js';
import { redisServer } from './redis.js';
import { type RunningComponent, type ServerTimes, givenComponent, startLocalServer } from './running.js';
import { COMPONENT_NAMES, type ComponentsSetting, readComponentsSetting } from './settings.js';
import type { ComponentEvent } from './supervise.js';

/** Options of `startComponents`. */
export interface StartComponentsOptions {
  /** The folder under which each local server keeps `<name>/` (data, log, account). */
  readonly dir: string;
  /** ms a local server may take to accept connections. @default 30000 */
  readonly startTimeoutMs?: number;
  /** ms a local server gets to stop cleanly before it is killed. @default 10000 */
  readonly stopTimeoutMs?: number;
  /**
   * Restart a local server this process started when it ends (same port, same data, with a
   * backoff and a limit: supervise.ts), telling `onEvent` of each exit and restart. `cloudfn dev`
   * turns it on. @default false
   */
  readonly supervise?: boolean;
  /** Hears each exit, restart and failure of a supervised server. @default nothing */
  readonly onEvent?: (event: ComponentEvent) => void;
}

/** The components of a session. */
export interface Components {
  /** `REDIS_ADDRESS`, `REDIS_USERNAME`, … exactly as the platform names them. */
  readonly env: Readonly<Record<string, string>>;
  readonly running: readonly RunningComponent[];
  /** Stops the local servers this process started (their data stays). */
  stop(): Promise<void>;
}

const LOCAL = { redis: redisServer, mysql: mysqlServer } as const;

/**
 * Starts (or shares) the components a setting names.
 * @example
 * const components = await startComponents({ redis: true }, { dir: '.cloudfn/components' });
 * process.env.REDIS_ADDRESS = components.env.REDIS_ADDRESS; // '127.0.0.1:<port>'
 * await components.stop();
 */
export async function startComponents(
  setting: ComponentsSetting,
  options: StartComponentsOptions,
): Promise<Components> {
  const valid = readComponentsSetting(setting);
  const times: ServerTimes = { startMs: options.startTimeoutMs ?? 30_000, stopMs: options.stopTimeoutMs ?? 10_000 };
  const running: RunningComponent[] = [];
  const onEvent = options.onEvent ?? (() => {});
  const supervision = options.supervise === true ? { report: onEvent } : undefined;
  const stop = async () => {
    await Promise.all(running.map((component) => component.stop()));
  };
  try {
    for (const name of COMPONENT_NAMES) {
      const value = valid[name];
      if (value === undefined) continue;
      running.push(
        value === true && name !== 'mongo'
          ? await startLocalServer(LOCAL[name], options.dir, times, supervision)
          : givenComponent(name, value as string),
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const env = Object.assign({}, ...running.map((component) => component.env)) as Record<string, string>;
  return { env, running, stop };
}
