import { HttpError, type Handler } from 'cloudfn';
import { mediaFor } from '../_media.js';

/** GET /videos/job?id=…: the state of an upload job (get_upload_job_info): init, process, success or fail. */
const job: Handler<{ id?: string }> = async (params, service) => {
  if (typeof params.id !== 'string' || params.id === '')
    throw new HttpError(400, 'id is required: GET /videos/job?id=<job id from POST /videos/upload>');
  const { data } = await mediaFor(service).getUploadJobInfo({ job_ids: [params.id] });
  const info = data?.video_infos?.find((v) => v.job_id === params.id);
  if (info === undefined) throw new HttpError(404, `upload job ${params.id} does not exist`);
  return { job: info.job_id, state: info.state, vid: info.vid ?? null };
};

export default job;
