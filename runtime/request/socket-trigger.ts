/**
 * The trigger of a request the server sends itself: a timer of `config.schedule` (or its
 * on-demand firing) writes its request on an in-memory connection marked with the trigger, and
 * handle.ts gives that request the trigger. A mark on a socket no client can reach, so no
 * client can claim it; only a gateway the deployment trusts (`triggerHeader`) may also send it,
 * for the timers it fires itself (docs/decisions.md).
 */
import type { Trigger } from '../types.js';

/** The property a marked socket carries its trigger in. */
export const SOCKET_TRIGGER: unique symbol = Symbol('cloudfn.socketTrigger');

/** A socket that may carry a trigger. */
export interface TriggerSocket {
  [SOCKET_TRIGGER]?: Trigger;
}

/**
 * Marks the server end of an in-memory connection: every request read from it has `trigger`.
 * @example markSocketTrigger(serverEnd, 'timer'); httpServer.emit('connection', serverEnd)
 */
export function markSocketTrigger(socket: object, trigger: Trigger): void {
  (socket as TriggerSocket)[SOCKET_TRIGGER] = trigger;
}
