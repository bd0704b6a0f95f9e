/**
 * `PlatformContext`, what the request handlers and background jobs share (options, state,
 * tokens, keys, queue, callbacks, limiter, ffmpeg), and the emulator's clock helpers.
 */
import type { KeyObject } from 'node:crypto';
import type { NonceStore } from '../../sign/index.js';
import type { AppKeyRegistry } from './keys/app-keys.js';
import type { CallbackSender } from './jobs/callbacks.js';
import type { FfmpegTools } from './jobs/ffmpeg.js';
import type { JobQueue } from './jobs/job-queue.js';
import type { ResolvedPlatformOptions } from './platform-options.js';
import type { RateLimiter } from './http/rate-limiter.js';
import type { StateStore } from './state/state-store.js';
import type { PlayStats } from './state/stats.js';
import type { TokenIssuer } from './keys/tokens.js';

/** Everything the request handlers and the background workers share. */
export interface PlatformContext {
  readonly options: ResolvedPlatformOptions;
  readonly store: StateStore;
  readonly tokens: TokenIssuer;
  readonly appKeys: AppKeyRegistry;
  readonly platformPrivateKey: KeyObject;
  /** The platform private key of a mini-program: its own pair's, or `platformPrivateKey`. */
  readonly platformKeyOf: (appid: string | undefined) => KeyObject;
  readonly nonces: NonceStore;
  readonly stats: PlayStats;
  readonly queue: JobQueue;
  readonly callbacks: CallbackSender;
  readonly limiter: RateLimiter;
  /** Undefined when ffmpeg/ffprobe are absent or turned off: media is then simulated. */
  readonly tools: FfmpegTools | undefined;
  /** `host:port` the server listens on, known once it listens; the links' backup domain. */
  listenHost: string;
}

/** Milliseconds since 1970 by the emulator's clock. */
export function nowMs(ctx: PlatformContext): number {
  return ctx.options.now();
}

/** Unix seconds by the emulator's clock. */
export function nowSeconds(ctx: PlatformContext): number {
  return Math.floor(ctx.options.now() / 1000);
}
