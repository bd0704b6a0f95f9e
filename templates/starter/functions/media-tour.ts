import { HttpError, type Handler } from 'cloudfn';
import { createMediaClient, type MediaClient } from 'cloudfn/media';

let media: MediaClient | undefined;

/**
 * GET /media-tour: the whole media flow of the platform contract's media API
 * (docs/platform-contract.md in cloudfn) in one call, against the platform (the local emulator
 * under `npm run dev`): upload a video by URL and wait for the job, transcode it to MP4 720P H264
 * and wait, then get its playable links. Every call is signed and every answer
 * verified when the CLOUDFN_MEDIA_* variables say so (`cloudfn dev --platform` sets them).
 * ?source_url=... uploads another video than the emulator's sample.
 */
const tour: Handler<{ source_url?: string }> = async (params, service) => {
  const source = params.source_url ?? process.env.CLOUDFN_PLATFORM_SAMPLE_URL;
  if (source === undefined) {
    throw new HttpError(
      400,
      'give ?source_url=https://.../video.mp4, or run under `cloudfn dev --platform`, which serves a sample video',
    );
  }
  media ??= createMediaClient();
  const m = media.scoped({ logger: service, signal: service.signal });
  const wait = { pollIntervalMs: 200, timeoutMs: 60_000, signal: service.signal };

  const [upload] = await m.uploadAndWait([{ source_url: source, file_name: `tour-${Date.now()}` }], wait);
  if (upload === undefined || !upload.ok)
    throw new HttpError(502, `the upload failed: ${upload?.ok === false ? upload.error.message : 'no outcome'}`);
  service.info({ step: 'uploaded', vid: upload.vid });

  const transcode = await m.transcodeAndWait(upload.vid, '3', wait);
  service.info({ step: 'transcoded', vid: upload.vid, run_status: transcode.run_status });

  const links = await m.getVideoByVid({ vid: upload.vid, expire_time: 3600 });
  return {
    vid: upload.vid,
    source_info: upload.source_info,
    transcode: { run_id: transcode.run_id, run_status: transcode.run_status, run_status_msg: transcode.run_status_msg },
    play: (links.data ?? []).map((item) => ({
      definition: item.definition,
      format: item.format,
      codec: item.codec,
      url: item.main_play_url,
    })),
  };
};

export default tour;
export const config = { timeout: 120_000 };
