import { HttpError, type Handler } from 'cloudfn';
import { SignatureError, verifyServiceCallback } from 'cloudfn/sign';

/** A notification of the platform (an upload or a transcode ended). */
export interface CallbackEvent {
  event: 'upload.finished' | 'transcode.finished' | (string & {});
  app_id: string;
  /** Unix seconds. */
  create_time: number;
  data: Record<string, unknown>;
}

/** The platform public key, PEM text or a path: PLATFORM_PUBLIC_KEY, else the media client's variable. */
function platformPublicKey(): string {
  const key = process.env.PLATFORM_PUBLIC_KEY ?? process.env.CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY;
  if (key === undefined || key.trim() === '') {
    throw new HttpError(
      503,
      'set PLATFORM_PUBLIC_KEY to the platform public key (PEM text or a file path) to verify callbacks',
    );
  }
  return key.replace(/\\n/g, '\n');
}

/**
 * POST /callback: the platform's signed notifications. The signature (Platform-Timestamp,
 * Platform-Nonce-Str, Platform-Signature over timestamp, nonce and the raw body) is checked
 * before the body is trusted; a bad, stale or replayed one is answered 401 and not acted on.
 * Answering 2xx tells the platform not to retry.
 */
const callback: Handler<CallbackEvent> = async (event, service) => {
  if (service.httpMethod !== 'POST') throw new HttpError(405, 'the platform POSTs its callbacks here');
  try {
    await verifyServiceCallback(service, { publicKey: platformPublicKey() });
  } catch (error) {
    // The reason goes to the log and the answer; the platform shows it in its delivery report.
    if (error instanceof SignatureError) throw new HttpError(error.status, error.message, { code: error.code });
    throw error;
  }
  // From here on the body is the platform's.
  switch (event.event) {
    case 'upload.finished':
      service.info({ callback: event.event, vid: event.data.vid ?? null, state: event.data.state ?? null });
      break;
    case 'transcode.finished':
      service.info({ callback: event.event, vid: event.data.vid ?? null, run_status: event.data.run_status ?? null });
      break;
    default:
      service.warn({ callback: event.event, note: 'an event this function does not handle yet' });
  }
  return { received: event.event };
};

export default callback;
