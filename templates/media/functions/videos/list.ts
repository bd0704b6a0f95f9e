import { defineFunction } from 'cloudfn';
import { z } from 'zod';
import { mediaFor } from '../_media.js';

/**
 * GET /videos/list?page=0&size=20: one page of the app's videos (get_video_list). Its params are
 * declared: a query string carries text, so the numbers are coerced, and a bad one is answered
 * 400 CLOUDFN_BAD_PARAMS naming the field (`/size`) before this runs.
 */
export const config = {
  params: z.object({
    page: z.coerce.number().int().min(0).default(0),
    size: z.coerce.number().int().min(1).max(20).default(20),
  }),
};

export default defineFunction(config, async (params, service) => {
  const { total_num, data } = await mediaFor(service).getVideoList({
    page_size: params.size,
    page_number: params.page,
  });
  return {
    total: total_num,
    videos: (data ?? []).map((v) => ({
      vid: v.vid,
      name: v.video_name,
      size: v.size,
      uploaded: v.upload_time,
      status: v.business_status,
      transcode: v.trans_code_status ?? null,
    })),
  };
});
