/**
 * The directory of a worker of `cloudfn start --workers`: its own sessions are answered and
 * delivered in process; the others through the primary, which keeps the workers' registry and
 * routes to each session's owner (session-hub.ts). A push whose answer does not come within
 * PUSH_DEADLINE_MS lists its ids as failed, and the owner drops a delivery it reads after its
 * deadline: a push reported failed is never delivered late, and nothing is sent twice.
 */
import type { ConnIdCheck, LocalSessions, PushVia, SessionDirectory, SessionInfo } from './session-directory.js';
import { HubChannel, isHubMessage, PUSH_DEADLINE_MS, QUESTION_DEADLINE_MS } from './hub-channel.js';

/** What a worker sends, and how it hears: its process's IPC channel. */
export interface WorkerPort {
  send(message: unknown): boolean;
  onMessage(listener: (message: unknown) => void): () => void;
}

/** The port of this process, a cluster worker (`process.send`). */
export function processPort(): WorkerPort {
  return {
    send: (message) => {
      if (process.send === undefined || !process.connected) return false;
      // A write that fails as the primary goes is the channel's closing: the request's deadline answers it.
      process.send(message, undefined, {}, () => undefined);
      return true;
    },
    onMessage: (listener) => {
      process.on('message', listener);
      return () => void process.off('message', listener);
    },
  };
}

/**
 * The directory of one worker's gateway.
 * @example new Gateway({ call, identity, directory: (local) => new WorkerDirectory(local, processPort()) })
 */
export class WorkerDirectory implements SessionDirectory {
  readonly #local: LocalSessions;
  readonly #channel: HubChannel;
  readonly #stop: () => void;

  constructor(local: LocalSessions, port: WorkerPort) {
    this.#local = local;
    this.#channel = new HubChannel('the primary', (message) => port.send(message), {
      deliver: (args: { ids: string[]; data: string; binary: boolean; via: PushVia; expiresAt: number }) => {
        // A request read after its deadline (this process was stopped, or busy) was already
        // answered failed to the caller: delivering it now would contradict that answer.
        if (Date.now() >= args.expiresAt) return args.ids;
        const data = Buffer.from(args.data, 'base64');
        return args.ids.filter((id) => !local.deliver(id, data, args.binary, args.via));
      },
      deliverGroup: (args: { name: string; value: string; data: string; binary: boolean }) => {
        const data = Buffer.from(args.data, 'base64');
        for (const id of local.groupMembers(args.name, args.value)) local.deliver(id, data, args.binary, 'group');
      },
      group: (args: { action: 'join' | 'leave'; ids: string[]; name: string; value: string }) =>
        local.group(args.action, args.ids, args.name, args.value),
      orphaned: async (args: { infos: SessionInfo[] }) => {
        await Promise.all(args.infos.map((info) => local.orphaned(info)));
      },
    });
    this.#stop = port.onMessage((message) => {
      if (isHubMessage(message)) this.#channel.receive(message);
    });
  }

  #ask<T>(op: string, args: unknown): Promise<T> {
    return this.#channel.request<T>(op, args, QUESTION_DEADLINE_MS);
  }

  added(info: SessionInfo): Promise<void> {
    return this.#ask('added', { info });
  }

  async removed(sessionId: string): Promise<void> {
    // Told, not asked: a closing socket waits for nothing.
    this.#channel.notify('removed', { sessionId });
  }

  grouped(action: 'join' | 'leave', sessionIds: readonly string[], name: string, value: string): Promise<string[]> {
    return this.#ask('grouped', { action, ids: sessionIds, name, value });
  }

  sessionsOf(openid: string): Promise<string[]> {
    return this.#ask('sessionsOf', { openid });
  }

  async query(sessionId: string): Promise<SessionInfo | undefined> {
    const here = this.#local.session(sessionId);
    if (here !== undefined) return here;
    return (await this.#ask<SessionInfo | null>('query', { sessionId })) ?? undefined;
  }

  groupMembers(name: string, value: string): Promise<string[]> {
    return this.#ask('groupMembers', { name, value });
  }

  async pushSessions(sessionIds: readonly string[], data: Buffer, binary: boolean, via: PushVia): Promise<string[]> {
    const failed: string[] = [];
    const remote: string[] = [];
    for (const id of sessionIds) {
      if (this.#local.session(id) === undefined) remote.push(id);
      else if (!this.#local.deliver(id, data, binary, via)) failed.push(id);
    }
    if (remote.length === 0) return failed;
    try {
      const args = { ids: remote, data: data.toString('base64'), binary, via };
      failed.push(...(await this.#channel.request<string[]>('push', args, PUSH_DEADLINE_MS)));
    } catch {
      // No answer in time (or the primary is gone): every remote id is reported failed, never retried.
      failed.push(...remote);
    }
    return failed;
  }

  async pushGroup(name: string, value: string, data: Buffer, binary: boolean): Promise<void> {
    for (const id of this.#local.groupMembers(name, value)) this.#local.deliver(id, data, binary, 'group');
    // The other workers' members get it through the primary; the answer is "" at once, as the platform's.
    this.#channel.notify('pushGroup', { name, value, data: data.toString('base64'), binary });
  }

  issueConnId(): Promise<string> {
    return this.#ask('issueConnId', {});
  }

  takeConnId(id: string, requireIssued: boolean): Promise<ConnIdCheck> {
    return this.#ask('takeConnId', { id, requireIssued });
  }

  async close(): Promise<void> {
    try {
      await this.#ask('closing', {});
    } catch {
      // The primary is gone: there are no records left to remove.
    }
    this.#stop();
    this.#channel.failAll('the directory closed');
  }
}
