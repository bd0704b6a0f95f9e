/**
 * Timer triggers (this folder's public entry): `config.schedule` parsed with croner, the
 * scheduler that fires functions through the app's pipeline with `trigger: 'timer'`, the
 * locks that make a fleet fire once, and the on-demand trigger endpoint.
 */
export { parseSchedule } from './cron.js';
export type { Schedule } from './cron.js';
export { createScheduleError, scheduleErrors } from './errors.js';
export type { ScheduleErrorCode } from './errors.js';
export { fireTimer } from './fire.js';
export { FIRING_HEADERS, PLATFORM_FIRING_LIMIT_MS } from './fire.js';
export type { FireResult, TimerFiring } from './fire.js';
export { grantLocksToWorkers, primaryLock, redisLock } from './lock.js';
export type { FireLock } from './lock.js';
export { Scheduler } from './scheduler.js';
export type { SchedulerClock, SchedulerOptions } from './scheduler.js';
export type { ScheduledFunction, TimersMeta, TriggerAnswer } from './protocol.js';
export { TRIGGER_PREFIX, triggerHook } from './trigger-route.js';
export { serveTimers } from './serve-timers.js';
export type { ServeTimersOptions, TimersExtension } from './serve-timers.js';
export { triggerRemote } from './trigger-client.js';
