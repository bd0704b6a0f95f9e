/**
 * What the operation handlers share: the `Caller`, the handler type, and the `env_id` and
 * video-ownership checks.
 */
import type { PlatformContext } from '../../context.js';
import { platformError } from '../../../errors.js';
import type { VideoRecord } from '../../state/state.js';

/** Who is calling, as the server established it before the operation runs. */
export interface Caller {
  /** The mini-program acting: the signed appid, else the token's client_key. */
  appid: string;
  /** The `Host` the request reached, the default domain of playback links. */
  host: string;
}

/** What an operation answers besides `err_no`, `err_msg` and `log_id`. */
export type OperationResult = Record<string, unknown>;

/** One operation of the platform contract (Media API), after validation passed. */
export type OperationHandler = (
  ctx: PlatformContext,
  body: Record<string, unknown>,
  caller: Caller,
) => OperationResult | Promise<OperationResult>;

/**
 * Checks `env_id` against the configured environments (any is accepted when none are set).
 * @example requireEnv(ctx, body.env_id)
 */
export function requireEnv(ctx: PlatformContext, envId: unknown): void {
  const known = ctx.options.envIds;
  if (typeof envId !== 'string' || known.length === 0) return;
  if (!known.includes(envId))
    throw platformError('PLATFORM_SPACE_NOT_EXIST', envId, known.map((e) => JSON.stringify(e)).join(', '));
}

/**
 * The video `vid` when it exists and belongs to the caller; else 401003 or 41050.
 * @example const video = ownedVideo(ctx, caller, body.vid as string)
 */
export function ownedVideo(ctx: PlatformContext, caller: Caller, vid: string): VideoRecord {
  const video = ctx.store.state.videos[vid];
  if (video === undefined) throw platformError('PLATFORM_VIDEO_NOT_EXIST', vid);
  if (video.appid !== caller.appid) throw platformError('PLATFORM_NO_AUTHORITY', vid, caller.appid);
  return video;
}
