/**
 * `createPlatform`, which starts the emulator (data folder, keys, state, context, HTTP server,
 * resumed jobs) and returns the running `Platform`; and `resetDataDir` for `--reset`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { MemoryNonceStore, signCallback } from '../../sign/index.js';
import { AppKeyRegistry } from './keys/app-keys.js';
import { CallbackSender } from './jobs/callbacks.js';
import type { PlatformContext } from './context.js';
import { parseFaults, type FaultSpec } from './http/faults.js';
import { detectFfmpeg, type FfmpegTools } from './jobs/ffmpeg.js';
import { JobQueue } from './jobs/job-queue.js';
import { resolvePlatformOptions, type PlatformOptions, type ResolvedPlatformOptions } from './platform-options.js';
import {
  APP_PLATFORM_KEYS_DIR,
  loadPlatformKeyRing,
  PLATFORM_PRIVATE_KEY_FILE,
  PLATFORM_PUBLIC_KEY_FILE,
} from './keys/key-pairs.js';
import { RateLimiter } from './http/rate-limiter.js';
import { createRequestListener } from './http/server.js';
import { StateStore } from './state/state-store.js';
import { PlayStats } from './state/stats.js';
import { TokenIssuer } from './keys/tokens.js';
import { resumeTranscodes } from './jobs/transcodes.js';
import { resumeUploads } from './jobs/upload-jobs.js';

/** A running emulator. */
export interface Platform {
  readonly server: Server;
  /** Base URL of the API and the media links, e.g. `http://127.0.0.1:4000`. */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** Path of `platform_public_key.pem`, the key providers verify responses and callbacks with. */
  readonly publicKeyPath: string;
  /** The same key as PEM text. */
  readonly publicKeyPem: string;
  /**
   * A folder of `<appid>.pem`, the platform public key of each mini-program with its own pair
   * (option `appids`): what `createPlatformKeyStore({ dir })` reads.
   */
  readonly platformKeysDir: string;
  /** The public key (PEM) of each mini-program with its own pair, by appid. */
  readonly appPublicKeys: ReadonlyMap<string, string>;
  /** False when ffmpeg/ffprobe are absent or turned off: probing and transcoding are simulated. */
  readonly ffmpeg: boolean;
  readonly options: ResolvedPlatformOptions;
  /** The live context, for tests that look inside (state, callbacks, stats). */
  readonly context: PlatformContext;
  /**
   * Replaces the injected faults while running, e.g. to test a client's retries.
   * @example platform.setFaults('500=1'); platform.setFaults({})
   */
  setFaults(spec: FaultSpec | string): void;
  /** Resolves once no upload or transcode is running or queued, and no callback is pending. */
  idle(): Promise<void>;
  /** Stops listening, aborts background work (resumed on the next start) and saves the state. */
  close(): Promise<void>;
}

/**
 * Empties a data folder but keeps the platform key pairs, so providers that already
 * configured the published public key keep working after `--reset`.
 * @example await resetDataDir('.cloudfn/platform')
 */
export async function resetDataDir(dataDir: string): Promise<void> {
  const keep = new Set([PLATFORM_PRIVATE_KEY_FILE, PLATFORM_PUBLIC_KEY_FILE, APP_PLATFORM_KEYS_DIR]);
  const entries = await readdir(dataDir).catch(() => [] as string[]);
  await Promise.all(
    entries.filter((name) => !keep.has(name)).map((name) => rm(join(dataDir, name), { recursive: true, force: true })),
  );
}

async function findTools(option: ResolvedPlatformOptions['ffmpeg']): Promise<FfmpegTools | undefined> {
  if (option === false) return undefined;
  return detectFfmpeg(option === true ? undefined : option);
}

/**
 * Starts the emulator: loads (or creates) the data folder, the platform key pair and the
 * state, resumes unfinished jobs and listens. Every test and `cloudfn platform` go through it.
 * @example
 * const platform = await createPlatform({ port: 0, dataDir: tmp, jobDelayMs: 0, log: () => {} });
 * const client = createMediaClient({ baseUrl: platform.url, credentials: { clientKey: 'tt1', clientSecret: 's' }, platformPublicKey: platform.publicKeyPem });
 * await platform.close();
 */
export async function createPlatform(input: PlatformOptions = {}): Promise<Platform> {
  const options = resolvePlatformOptions(input);
  const { dataDir } = options;
  if (options.reset) await resetDataDir(dataDir);
  await mkdir(join(dataDir, 'media'), { recursive: true });
  const ring = await loadPlatformKeyRing(dataDir, options.appids);
  const keys = ring.default;
  const store = await StateStore.open(dataDir);
  const tools = await findTools(options.ffmpeg);
  const log = options.log;
  const queue = new JobQueue(options.concurrency, (error) =>
    log(`background job failed: ${error instanceof Error ? error.message : String(error)}`),
  );
  const callbacks = new CallbackSender(
    {
      url: options.callbackUrl,
      retries: options.callbackRetries,
      backoffMs: options.callbackBackoffMs,
      timeoutMs: 10_000,
      duplicate: () => {
        const rate = options.faults.duplicateCallback?.rate ?? 0;
        return rate > 0 && options.random() < rate;
      },
    },
    (body, appid) =>
      signCallback({ privateKey: ring.privateKeyOf(appid), body, timestamp: Math.floor(options.now() / 1000) }),
    log,
  );
  const ctx: PlatformContext = {
    options,
    store,
    tokens: new TokenIssuer(
      store,
      {
        clients: options.clients,
        ttlSeconds: options.tokenTtlSeconds,
        retireSeconds: options.tokenRetireSeconds,
        fetchLimit: options.tokenFetchLimit,
        fetchWindowSeconds: options.tokenFetchWindowSeconds,
      },
      options.now,
    ),
    appKeys: new AppKeyRegistry(dataDir),
    platformPrivateKey: keys.privateKey,
    platformKeyOf: ring.privateKeyOf,
    nonces: new MemoryNonceStore(),
    stats: new PlayStats(store, options.now),
    queue,
    callbacks,
    limiter: new RateLimiter(options.rateLimits, options.now),
    tools,
    listenHost: '',
  };
  const listener = createRequestListener(ctx, keys.publicKeyPem);
  const guard = options.guard;
  // The guard first (who may call the emulator), as http-server.ts runs it for a cloudfn server.
  const server = createServer(
    guard === undefined
      ? listener
      : (req, res) => {
          if (!guard.request(req, res)) listener(req, res);
        },
  );
  if (guard !== undefined) server.on('upgrade', (req, socket) => guard.upgrade(req, socket) || socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  ctx.listenHost = `${hostPart}:${port}`;
  resumeUploads(ctx);
  resumeTranscodes(ctx);
  if (tools === undefined) {
    log(
      options.ffmpeg === false
        ? 'media is simulated (ffmpeg turned off)'
        : 'ffmpeg/ffprobe not found on PATH: uploads are checked by their first bytes and transcodes copy the original (install ffmpeg for real media)',
    );
  }
  let closed: Promise<void> | undefined;
  return {
    server,
    url: `http://${ctx.listenHost}`,
    port,
    dataDir,
    publicKeyPath: keys.publicKeyPath,
    publicKeyPem: keys.publicKeyPem,
    platformKeysDir: ring.publicDir,
    appPublicKeys: new Map([...ring.apps].map(([appid, pair]) => [appid, pair.publicKeyPem])),
    ffmpeg: tools !== undefined,
    options,
    context: ctx,
    setFaults(spec) {
      options.faults = typeof spec === 'string' ? parseFaults(spec) : spec;
    },
    async idle() {
      await queue.idle();
      await callbacks.idle();
      await store.flush();
    },
    close() {
      closed ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await queue.close();
        await callbacks.close();
        await stopped;
        await store.flush();
      })();
      return closed;
    },
  };
}
