import { HttpError, type Handler } from 'cloudfn';
import { mediaFor } from '../_media.js';

/** GET /videos/list?page=0&size=20: one page of the app's videos (get_video_list). */
const list: Handler<{ page?: string; size?: string }> = async (params, service) => {
  const page = Number(params.page ?? 0);
  const size = Number(params.size ?? 20);
  if (!Number.isInteger(page) || page < 0)
    throw new HttpError(400, `page must be a whole number from 0, got ${JSON.stringify(params.page)}`);
  if (!Number.isInteger(size) || size < 1 || size > 20)
    throw new HttpError(400, `size must be a whole number from 1 to 20, got ${JSON.stringify(params.size)}`);
  const { total_num, data } = await mediaFor(service).getVideoList({ page_size: size, page_number: page });
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
};

export default list;
