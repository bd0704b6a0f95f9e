/**
 * The directory of a gateway alone in its process (`cloudfn dev`, `cloudfn/testing`, a single
 * `cloudfn start`): every session is its own gateway's, so each question is answered by the
 * gateway's own maps and each push delivered in process, at once. It keeps the connection ids
 * `/ws/get_conn_id` issues.
 */
import { ConnIds } from '../../platform/gateway/conn-ids.js';
import type { ConnIdCheck, LocalSessions, PushVia, SessionDirectory, SessionInfo } from './session-directory.js';

/**
 * The directory of one process's only gateway.
 * @example const gateway = new Gateway({ call, identity, directory: (local) => new LocalDirectory(local) })
 */
export class LocalDirectory implements SessionDirectory {
  readonly #local: LocalSessions;
  readonly #connIds = new ConnIds();

  constructor(local: LocalSessions) {
    this.#local = local;
  }

  // The gateway's own maps are the records: nothing to write.
  async added(_info: SessionInfo): Promise<void> {}

  async removed(_sessionId: string): Promise<void> {}

  async grouped(
    action: 'join' | 'leave',
    sessionIds: readonly string[],
    name: string,
    value: string,
  ): Promise<string[]> {
    return this.#local.group(action, sessionIds, name, value);
  }

  async sessionsOf(openid: string): Promise<string[]> {
    return this.#local.sessionsOf(openid);
  }

  async query(sessionId: string): Promise<SessionInfo | undefined> {
    return this.#local.session(sessionId);
  }

  async groupMembers(name: string, value: string): Promise<string[]> {
    return this.#local.groupMembers(name, value);
  }

  async pushSessions(sessionIds: readonly string[], data: Buffer, binary: boolean, via: PushVia): Promise<string[]> {
    return sessionIds.filter((id) => !this.#local.deliver(id, data, binary, via));
  }

  async pushGroup(name: string, value: string, data: Buffer, binary: boolean): Promise<void> {
    for (const id of this.#local.groupMembers(name, value)) this.#local.deliver(id, data, binary, 'group');
  }

  async issueConnId(): Promise<string> {
    return this.#connIds.issue();
  }

  async takeConnId(id: string, requireIssued: boolean): Promise<ConnIdCheck> {
    return this.#connIds.take(id, requireIssued);
  }

  async close(): Promise<void> {}
}
