/**
 * The primary of `cloudfn start --workers` as the hub of its workers' WebSocket sessions: it
 * keeps the registry (session → worker, openid → sessions, group → sessions) the workers report
 * to (worker-directory.ts), resolves a push to each session's owner and asks it to deliver,
 * within OWNER_DEADLINE_MS (a silent or dead owner's ids are failed), forwards a group push to
 * the other workers once, and issues the connection ids. A worker that exits without closing
 * leaves orphans: one surviving worker gets each orphan's disconnect call, once.
 */
import cluster, { type Worker } from 'node:cluster';
import { sendToWorker } from '../../../runtime/serve/worker-message.js';
import { ConnIds } from '../../platform/gateway/conn-ids.js';
import { HubChannel, type HubHandler, isHubMessage, OWNER_ANSWER_MARGIN_MS, OWNER_DEADLINE_MS } from './hub-channel.js';
import type { PushVia, SessionInfo } from './session-directory.js';

interface Entry {
  worker: number;
  info: SessionInfo;
}

type GroupArgs = { action: 'join' | 'leave'; ids: string[]; name: string; value: string };

/** One map key per group, as the gateway's (NUL is never in a header). */
function groupKey(name: string, value: string): string {
  return `${name}\u0000${value}`;
}

/** The registry and the routing of one primary. */
export class SessionHub {
  readonly #sessions = new Map<string, Entry>();
  readonly #byOpenid = new Map<string, Set<string>>();
  readonly #groups = new Map<string, Set<string>>();
  readonly #channels = new Map<number, HubChannel>();
  readonly #connIds = new ConnIds();

  /** The channel to worker `id`, made on its first message. */
  channel(worker: Pick<Worker, 'id' | 'isConnected' | 'send'>): HubChannel {
    let channel = this.#channels.get(worker.id);
    if (channel === undefined) {
      channel = new HubChannel(
        `worker ${worker.id}`,
        (message) => sendToWorker(worker, message),
        this.#handlers(worker.id),
      );
      this.#channels.set(worker.id, channel);
    }
    return channel;
  }

  #handlers(from: number): Record<string, HubHandler> {
    return {
      added: ({ info }: { info: SessionInfo }) => this.#add(from, info),
      removed: ({ sessionId }: { sessionId: string }) => this.#remove(sessionId),
      closing: () => {
        for (const [id, entry] of [...this.#sessions]) if (entry.worker === from) this.#remove(id);
      },
      grouped: (args: GroupArgs) => this.#grouped(args),
      sessionsOf: ({ openid }: { openid: string }) => [...(this.#byOpenid.get(openid) ?? [])],
      query: ({ sessionId }: { sessionId: string }) => this.#sessions.get(sessionId)?.info ?? null,
      groupMembers: ({ name, value }: { name: string; value: string }) => [
        ...(this.#groups.get(groupKey(name, value)) ?? []),
      ],
      push: (args: { ids: string[]; data: string; binary: boolean; via: PushVia }) => this.#push(args),
      pushGroup: (args: { name: string; value: string; data: string; binary: boolean }) => {
        const owners = new Set<number>();
        for (const id of this.#groups.get(groupKey(args.name, args.value)) ?? []) {
          const owner = this.#sessions.get(id)?.worker;
          if (owner !== undefined && owner !== from) owners.add(owner);
        }
        for (const owner of owners) this.#channels.get(owner)?.notify('deliverGroup', args);
      },
      issueConnId: () => this.#connIds.issue(),
      takeConnId: ({ id, requireIssued }: { id: string; requireIssued: boolean }) =>
        this.#connIds.take(id, requireIssued),
    };
  }

  #add(worker: number, info: SessionInfo): void {
    // Two workers' ids meeting would send one player's pushes to another: the newcomer is
    // refused (its client is answered 503 and retries) rather than the record overwritten.
    const taken = this.#sessions.get(info.sessionId);
    if (taken !== undefined && taken.worker !== worker)
      throw new Error(`session id ${info.sessionId} is already worker ${taken.worker}'s`);
    this.#sessions.set(info.sessionId, { worker, info: { ...info, groups: [...info.groups] } });
    if (info.openid === '') return;
    let users = this.#byOpenid.get(info.openid);
    if (users === undefined) this.#byOpenid.set(info.openid, (users = new Set()));
    users.add(info.sessionId);
  }

  #remove(sessionId: string): Entry | undefined {
    const entry = this.#sessions.get(sessionId);
    if (entry === undefined) return undefined;
    this.#sessions.delete(sessionId);
    const users = this.#byOpenid.get(entry.info.openid);
    users?.delete(sessionId);
    if (users?.size === 0) this.#byOpenid.delete(entry.info.openid);
    for (const label of entry.info.groups) {
      const cut = label.indexOf('=');
      const key = groupKey(label.slice(0, cut), label.slice(cut + 1));
      const members = this.#groups.get(key);
      members?.delete(sessionId);
      if (members?.size === 0) this.#groups.delete(key);
    }
    return entry;
  }

  /** The ids of `ids` by the worker that owns each; the unknown ones apart. */
  #byOwner(ids: readonly string[]): { owners: Map<number, string[]>; unknown: string[] } {
    const owners = new Map<number, string[]>();
    const unknown: string[] = [];
    for (const id of ids) {
      const owner = this.#sessions.get(id)?.worker;
      if (owner === undefined || !this.#channels.has(owner)) {
        unknown.push(id);
        continue;
      }
      const list = owners.get(owner);
      if (list === undefined) owners.set(owner, [id]);
      else list.push(id);
    }
    return { owners, unknown };
  }

  async #push(args: { ids: string[]; data: string; binary: boolean; via: PushVia }): Promise<string[]> {
    const { owners, unknown } = this.#byOwner(args.ids);
    const answers = await Promise.all(
      [...owners].map(async ([owner, ids]) => {
        try {
          const expiresAt = Date.now() + OWNER_DEADLINE_MS - OWNER_ANSWER_MARGIN_MS;
          return await this.#channels
            .get(owner)!
            .request<string[]>('deliver', { ...args, ids, expiresAt }, OWNER_DEADLINE_MS);
        } catch {
          // Silent past the deadline, or gone: its ids are failed; a late delivery is not retried.
          return ids;
        }
      }),
    );
    return [...unknown, ...answers.flat()];
  }

  async #grouped(args: GroupArgs): Promise<string[]> {
    const { owners, unknown } = this.#byOwner(args.ids);
    const label = `${args.name}=${args.value}`;
    const key = groupKey(args.name, args.value);
    const answers = await Promise.all(
      [...owners].map(async ([owner, ids]) => {
        let failed: string[];
        try {
          failed = await this.#channels.get(owner)!.request<string[]>('group', { ...args, ids }, OWNER_DEADLINE_MS);
        } catch {
          return ids;
        }
        for (const id of ids) {
          const entry = this.#sessions.get(id);
          if (entry === undefined || failed.includes(id)) continue;
          let members = this.#groups.get(key);
          if (args.action === 'join') {
            if (members === undefined) this.#groups.set(key, (members = new Set()));
            members.add(id);
            if (!entry.info.groups.includes(label)) entry.info.groups.push(label);
          } else {
            members?.delete(id);
            if (members?.size === 0) this.#groups.delete(key);
            entry.info.groups = entry.info.groups.filter((g) => g !== label);
          }
        }
        return failed;
      }),
    );
    return [...unknown, ...answers.flat()];
  }

  /**
   * Worker `id` exited: what waits for it fails now, its sessions leave the registry, and one
   * surviving worker calls each orphan's disconnect.
   */
  workerGone(id: number, survivors: readonly Pick<Worker, 'id' | 'isConnected' | 'send'>[]): void {
    this.#channels.get(id)?.failAll(`worker ${id} exited`);
    this.#channels.delete(id);
    const orphans: SessionInfo[] = [];
    for (const [sessionId, entry] of [...this.#sessions]) {
      if (entry.worker !== id) continue;
      this.#remove(sessionId);
      orphans.push(entry.info);
    }
    if (orphans.length === 0) return;
    // With no worker left, no function can be called: a restarted worker serves new clients only.
    const heir = survivors[0];
    if (heir !== undefined) this.channel(heir).notify('orphaned', { infos: orphans });
  }
}

/**
 * Makes this primary the hub of its workers' sessions; returns how to stop.
 * @example const stop = serveSessionHub(); await runPrimary(...); stop()
 */
export function serveSessionHub(): () => void {
  const hub = new SessionHub();
  const onMessage = (worker: Worker, message: unknown): void => {
    if (isHubMessage(message)) hub.channel(worker).receive(message);
  };
  const onExit = (worker: Worker): void => {
    const survivors = Object.values(cluster.workers ?? {}).filter(
      (w): w is Worker => w !== undefined && w.id !== worker.id && w.isConnected(),
    );
    hub.workerGone(worker.id, survivors);
  };
  cluster.on('message', onMessage);
  cluster.on('exit', onExit);
  return () => {
    cluster.off('message', onMessage);
    cluster.off('exit', onExit);
  };
}
