// A timer: every minute the platform calls this with the params below (create the trigger on the
// platform with what `npm run build` prints; `cloudfn dev` and `cloudfn start` fire it themselves).
// It answers only timer calls: anyone else gets 403.
import { HttpError, type Service } from 'cloudfn';

export const config = { schedule: { cron: '0 * * * * *', params: { job: 'settle-rounds' } } };

export default async function settle(params: { job?: string }, service: Service) {
  if (service.trigger !== 'timer') throw new HttpError(403, 'settle is called by its timer only');
  service.log({ settled: params.job });
  return { settled: params.job ?? 'settle-rounds' };
}
