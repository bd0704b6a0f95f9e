import { HttpError, type Handler } from 'cloudfn';
import { createMediaClient, MediaError, type MediaClient } from 'cloudfn/media';

// Created on first use and kept, so its token cache and rate limiter serve every request, and
// the other functions run without the CLOUDFN_MEDIA_* variables set.
let media: MediaClient | undefined;

function client(): MediaClient {
  if (media === undefined) {
    try {
      media = createMediaClient(); // every option from CLOUDFN_MEDIA_* (see .env.example)
    } catch (error) {
      if (error instanceof MediaError && error.code === 'MEDIA_OPTIONS') {
        throw new HttpError(503, `the media client is not configured: ${error.message}`);
      }
      throw error;
    }
  }
  return media;
}

/**
 * GET /videos?page=0: one page of the app's videos on the platform (get_video_list of the media
 * API in the platform contract, docs/platform-contract.md in cloudfn).
 */
const videos: Handler<{ page?: string }> = async (params, service) => {
  const page = params.page === undefined ? 0 : Number(params.page);
  if (!Number.isInteger(page) || page < 0)
    throw new HttpError(400, `page must be a whole number from 0, got ${JSON.stringify(params.page)}`);
  // The request's logid goes into the client's log lines; its calls stop when this one times out.
  const m = client().scoped({ logger: service, signal: service.signal });
  const { total_num, data } = await m.getVideoList({ page_size: 20, page_number: page });
  return {
    total: total_num,
    page,
    videos: (data ?? []).map((v) => ({ vid: v.vid, name: v.video_name, size: v.size, status: v.business_status })),
  };
};

export default videos;
