/**
 * `listVideos`: every video of `get_video_list`, page after page.
 */
import type { CallOptions } from './call-options.js';
import type { HelperContext } from './helper-context.js';
import type { GetVideoListRequest, OpenVideoModel } from './types.js';
import { MAX_PAGE_SIZE } from './validate.js';

/** Filter of `listVideos`: `get_video_list` without paging (page_size defaults to 20). */
export type ListVideosFilter = Omit<GetVideoListRequest, 'page_number' | 'page_size'> & {
  page_size?: number;
  page_number?: number;
};

/**
 * Every video matching `filter`, page after page, until a short page or `total_num` is reached.
 * @example for await (const video of listVideos(context, { business_status: 99 })) console.log(video.vid)
 */
export async function* listVideos(
  { call }: HelperContext,
  filter: ListVideosFilter = {},
  options: CallOptions = {},
): AsyncGenerator<OpenVideoModel, void, undefined> {
  const page_size = filter.page_size ?? MAX_PAGE_SIZE;
  let page_number = filter.page_number ?? 0;
  let seen = 0;
  for (;;) {
    const page = await call('get_video_list', { ...filter, page_size, page_number }, options);
    const videos = page.data ?? [];
    for (const video of videos) yield video;
    seen += videos.length;
    // total_num 0 may mean "not sent", so only a positive total ends the walk early.
    if (videos.length < page_size || (page.total_num > 0 && seen >= page.total_num)) return;
    page_number++;
  }
}
