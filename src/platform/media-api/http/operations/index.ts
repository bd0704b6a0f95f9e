/**
 * The table of the nine `cloud_voc` operations (platform contract, Media API), by wire
 * name, to their handlers in this folder.
 */
import type { Operation } from '../../../../media/types.js';
import type { OperationHandler } from './shared.js';
import { describeStaticData, describeTopData } from './statistics.js';
import { uploadVideoByUrls, getUploadJobInfo } from './uploads.js';
import { deleteVideo, getVideoByVid, getVideoList } from './videos.js';
import { getWorkFlowExecution, startWorkFlow } from './work-flows.js';

export type { Caller, OperationHandler, OperationResult } from './shared.js';

/** The nine operations of docs/platform-contract.md#media-api, by wire name. */
export const operations: Readonly<Record<Operation, OperationHandler>> = {
  get_video_list: getVideoList,
  delete_video: deleteVideo,
  get_video_by_vid: getVideoByVid,
  upload_video_by_urls: uploadVideoByUrls,
  get_upload_job_info: getUploadJobInfo,
  start_work_flow: startWorkFlow,
  get_work_flow_exection: getWorkFlowExecution,
  describe_vod_played_top_data: describeTopData,
  describe_vod_played_static_data: describeStaticData,
};
