/**
 * `startStorage` for integration tests: the local TOS in this process, as `cloudfn dev` runs it
 * for `"components": { "tos": true }`. The platform's TOS hosts (`tos-cn-beijing.volces.com`,
 * `<bucket>.` in front, the intranet `ivolces.com` ones) are answered in process through the
 * intranet hook, so the platform's sample (`new TosClient({ endpoint: 'tos-cn-beijing.volces.com' })`)
 * runs unchanged; a loopback server answers presigned URLs (curl, fetch) and the mini-program's
 * `createCloud(...).uploadFile` at `url`. Without a `dir`, the data lives in a temporary folder
 * that `stop` removes, so each test starts empty.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '../../runtime/log/logger.js';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { serve } from '../../runtime/serve/serve.js';
import { ObjectStore } from '../platform/storage/object-store.js';
import { storageExtension } from '../platform/storage/service.js';
import { localTosSetting, type TOS_ENV_NAMES, tosEnv } from '../platform/storage/setting.js';

/** Options of `startStorage`. */
export interface TestStorageOptions {
  /** Where the store keeps its data; by default a temporary folder removed by `stop`. */
  readonly dir?: string;
  /** Set the variables (`TOS_ACCESS_KEY`, …) in `process.env` until `stop`. @default true */
  readonly setEnv?: boolean;
}

/** A running local TOS. */
export interface TestStorage {
  /** The loopback server: `createCloud({ baseUrl: storage.url })`, and where presigned URLs open. */
  readonly url: string;
  /** The variables dev injects: `TOS_ACCESS_KEY`, `TOS_SECRET_KEY`, `TOS_REGION`, `TOS_ENDPOINT`, `TOS_BUCKET`. */
  readonly env: Readonly<Record<(typeof TOS_ENV_NAMES)[number], string>>;
  /** The store itself, to seed or read objects without the SDK. */
  readonly store: ObjectStore;
  /** The store's folder. */
  readonly dir: string;
  /** What the local TOS logged (refused signatures name what did not match). */
  readonly logs: () => string[];
  /** Stops the server, puts the variables back, and removes a temporary folder. */
  stop(): Promise<void>;
}

/**
 * Starts the local TOS for a test.
 * @example
 * const storage = await startStorage();
 * const client = new TosClient({ accessKeyId: storage.env.TOS_ACCESS_KEY, accessKeySecret: storage.env.TOS_SECRET_KEY, region: 'cn-beijing', endpoint: 'tos-cn-beijing.volces.com' });
 * await client.putObject({ bucket: storage.env.TOS_BUCKET, key: 'a.txt', body: Buffer.from('hi') });
 * // ... the test ...
 * await storage.stop();
 */
export async function startStorage(options: TestStorageOptions = {}): Promise<TestStorage> {
  const temporary = options.dir === undefined ? mkdtempSync(join(tmpdir(), 'cloudfn-storage-')) : undefined;
  const dir = options.dir ?? temporary!;
  const setting = localTosSetting(dir);
  const env = tosEnv(setting);
  const sink = createMemorySink();
  const logger = new Logger(sink);
  // The test's own handle on the store the server keeps (one folder, read and written by both).
  const store = new ObjectStore({ dir, defaultBucket: setting.bucket });
  const previous = new Map<string, string | undefined>();
  if (options.setEnv !== false)
    for (const [name, value] of Object.entries(env)) {
      previous.set(name, process.env[name]);
      process.env[name] = value;
    }
  const restore = (): void => {
    for (const [name, value] of previous) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  let server: Awaited<ReturnType<typeof serve>>;
  try {
    const extension = await storageExtension(setting, logger);
    server = await serve([], {
      flags: { port: '0', host: '127.0.0.1' },
      extensions: [extension],
      logger,
      handleSignals: false,
      startLine: false,
    });
  } catch (error) {
    restore();
    if (temporary !== undefined) rmSync(temporary, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `http://127.0.0.1:${server.port}`,
    env,
    store,
    dir,
    logs: () => sink.records.map((record) => record.msg ?? ''),
    stop: async () => {
      await server.close();
      restore();
      if (temporary !== undefined) rmSync(temporary, { recursive: true, force: true });
    },
  };
}
