/**
 * `startComponents` for integration tests: the app's Redis, MySQL and MongoDB as the platform
 * injects them (`REDIS_*`, `MYSQL_*`, `MONGO_*`), each `true` a real local server. Without a
 * `dir`, the data lives in a temporary folder that `stop` removes, so each test starts empty.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Components,
  type ComponentsSetting,
  startComponents as startAppComponents,
} from '../platform/components/index.js';

/** Options of `startComponents` in tests. */
export interface TestComponentsOptions {
  /** Where the servers keep their data; by default a temporary folder removed by `stop`. */
  readonly dir?: string;
  /** ms a server may take to accept connections. @default 30000 */
  readonly startTimeoutMs?: number;
}

/**
 * Starts the components a test needs and returns the platform's variables and a stop.
 * @example
 * const components = await startComponents({ redis: true });
 * const redis = new Redis(`redis://${components.env.REDIS_USERNAME}:${components.env.REDIS_PASSWORD}@${components.env.REDIS_ADDRESS}`);
 * // ... the test ...
 * await components.stop();
 */
export async function startComponents(
  setting: ComponentsSetting,
  options: TestComponentsOptions = {},
): Promise<Components> {
  const temporary = options.dir === undefined ? mkdtempSync(join(tmpdir(), 'cloudfn-components-')) : undefined;
  const dir = options.dir ?? temporary!;
  let components: Components;
  try {
    components = await startAppComponents(setting, {
      dir,
      ...(options.startTimeoutMs === undefined ? {} : { startTimeoutMs: options.startTimeoutMs }),
    });
  } catch (error) {
    if (temporary !== undefined) rmSync(temporary, { recursive: true, force: true });
    throw error;
  }
  return {
    env: components.env,
    running: components.running,
    stop: async () => {
      await components.stop();
      if (temporary !== undefined) rmSync(temporary, { recursive: true, force: true });
    },
  };
}
