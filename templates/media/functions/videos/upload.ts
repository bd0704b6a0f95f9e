import { HttpError, type Handler } from 'cloudfn';
import { asHttpError, mediaFor } from '../_media.js';

interface UploadParams {
  /** A public URL of the video. */
  url?: unknown;
  /** The name it gets on the platform. */
  name?: unknown;
}

/**
 * POST /videos/upload with {"url": "https://…/clip.mp4", "name": "clip"}: the platform fetches
 * the URL (upload_video_by_urls). Answers 202 with the job to poll at GET /videos/job?id=….
 */
const upload: Handler<UploadParams> = async (params, service) => {
  if (service.httpMethod !== 'POST') throw new HttpError(405, 'POST a JSON body {"url": "...", "name": "..."}');
  const { url, name } = params ?? {};
  if (typeof url !== 'string' || !/^https?:\/\//.test(url))
    throw new HttpError(400, `url must be an http(s) URL of a video, got ${JSON.stringify(url)}`);
  const fileName = typeof name === 'string' && name !== '' ? name : (new URL(url).pathname.split('/').pop() ?? 'video');
  try {
    const { data } = await mediaFor(service).uploadVideoByUrls({
      url_sets: [{ source_url: url, file_name: fileName }],
    });
    const job = data?.url_jobs?.[0];
    service.info({ upload: fileName, job_id: job?.job_id });
    service.status(202);
    return { job: job?.job_id ?? null, poll: job ? `/videos/job?id=${job.job_id}` : null };
  } catch (error) {
    throw asHttpError(error, `the upload of ${url}`);
  }
};

export default upload;
