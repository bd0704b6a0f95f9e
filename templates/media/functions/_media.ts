/**
 * The media client shared by the functions (files starting with `_` are helpers, not
 * functions). One client per instance: its token cache and rate limiter serve every request.
 */
import { HttpError, type Service } from 'cloudfn';
import {
  createMediaClient,
  MediaApiError,
  MediaErrNo,
  MediaError,
  MediaValidationError,
  type MediaClient,
} from 'cloudfn/media';

let media: MediaClient | undefined;

/**
 * The client for one request: its calls log with the request's logid and stop when the
 * function times out. Created on first use from the CLOUDFN_MEDIA_* variables.
 */
export function mediaFor(service: Service): MediaClient {
  if (media === undefined) {
    try {
      media = createMediaClient();
    } catch (error) {
      if (error instanceof MediaError && error.code === 'MEDIA_OPTIONS')
        throw new HttpError(503, `the media client is not configured: ${error.message}`);
      throw error;
    }
  }
  return media.scoped({ logger: service, signal: service.signal });
}

/**
 * Turns the media errors a caller can fix into answers: a bad field is 400, an unknown video
 * 404. Anything else stays a 500, logged with the platform's log_id.
 */
export function asHttpError(error: unknown, what: string): unknown {
  if (error instanceof MediaValidationError) return new HttpError(400, error.message);
  if (error instanceof MediaApiError && error.errNo === MediaErrNo.VIDEO_NOT_EXIST)
    return new HttpError(404, `${what} does not exist; list the videos with GET /videos/list`);
  return error;
}
