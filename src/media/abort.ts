/**
 * The one abort wrapper of the media client: a wait (for a token, a rate-limit slot, a back-off
 * or a poll interval) that the caller's signal ends becomes MEDIA_ABORTED, naming the operation.
 */
import { createMediaError, MediaError } from './errors.js';

/**
 * Runs `wait`; when it fails because `signal` aborted, rejects with MEDIA_ABORTED and the
 * signal's reason instead. A MediaError (already precise) and any failure of an unaborted call
 * pass through unchanged.
 * @example await untilAborted('get_upload_job_info', signal, () => clock.sleep(1000, signal))
 */
export async function untilAborted<T>(
  operation: string,
  signal: AbortSignal | undefined,
  wait: () => Promise<T> | T,
): Promise<T> {
  try {
    return await wait();
  } catch (error) {
    if (signal?.aborted && !(error instanceof MediaError)) {
      const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted');
      throw createMediaError('MEDIA_ABORTED', { operation, cause: error }, operation, reason);
    }
    throw error;
  }
}
