import { HttpError, type Handler } from 'cloudfn';
import { asHttpError, mediaFor } from '../_media.js';

/**
 * GET /videos/play?vid=…: playable links of a transcoded video (get_video_by_vid), valid for
 * `expire` seconds (3600 by default).
 */
const play: Handler<{ vid?: string; expire?: string }> = async (params, service) => {
  if (typeof params.vid !== 'string' || params.vid === '')
    throw new HttpError(400, 'vid is required: GET /videos/play?vid=<vid from /videos/list>');
  const expire = params.expire === undefined ? undefined : Number(params.expire);
  try {
    const { data } = await mediaFor(service).getVideoByVid({
      vid: params.vid,
      ...(expire === undefined ? {} : { expire_time: expire }),
    });
    const links = (data ?? []).map((item) => ({
      format: item.format,
      definition: item.definition,
      url: item.main_play_url,
      expires: item.main_url_expire,
    }));
    if (links.length === 0)
      throw new HttpError(409, `video ${params.vid} has no playable rendition yet; transcode it first`);
    return { vid: params.vid, links };
  } catch (error) {
    throw asHttpError(error, `video ${params.vid}`);
  }
};

export default play;
