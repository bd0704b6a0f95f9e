/**
 * The transcoding operations: start_work_flow queues a run (run by ../../jobs/transcodes.ts) and
 * get_work_flow_exection reports its status.
 */
import { nowMs } from '../../context.js';
import { platformError } from '../../../errors.js';
import { newId } from '../../state/ids.js';
import type { RunRecord } from '../../state/state.js';
import { enqueueTranscode, RUN_STATUS_MSG } from '../../jobs/transcodes.js';
import { ownedVideo, type OperationHandler } from './shared.js';

/** Template used when `trans_code_type` is omitted: MP4 720P H264, the one every player reads. */
export const DEFAULT_TRANS_CODE_TYPE = '3';

/** start_work_flow: queues a transcoding run and answers its run_id. */
export const startWorkFlow: OperationHandler = (ctx, body, caller) => {
  const video = ownedVideo(ctx, caller, body['vid'] as string);
  const now = nowMs(ctx);
  const run: RunRecord = {
    runId: newId('run'),
    vid: video.vid,
    appid: caller.appid,
    template: (body['trans_code_type'] as string | undefined) ?? DEFAULT_TRANS_CODE_TYPE,
    status: 1,
    message: RUN_STATUS_MSG[1]!,
    createdAt: now,
    updatedAt: now,
  };
  ctx.store.state.runs[run.runId] = run;
  ctx.store.changed();
  enqueueTranscode(ctx, run.runId);
  return { run_id: run.runId };
};

/** get_work_flow_exection: the state of a run; an unknown run_id is 401001. */
export const getWorkFlowExecution: OperationHandler = (ctx, body, caller) => {
  const runId = body['run_id'] as string;
  const run = ctx.store.state.runs[runId];
  if (run === undefined || run.appid !== caller.appid) {
    throw platformError(
      'PLATFORM_INPUT_INVALID',
      `run_id ${JSON.stringify(runId)} is not a transcoding task of this mini-program; use the run_id start_work_flow returned`,
    );
  }
  return { run_status: run.status, run_status_msg: run.message };
};
