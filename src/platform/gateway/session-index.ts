/**
 * The local gateway's indexes of its sessions: which sessions each user has and which each
 * group holds, kept as sessions open, join, leave and end. A group is keyed by its name and
 * value together (`groupKey`).
 */

/**
 * One map key per group; name and value may hold any character but NUL is never in a header.
 * @example groupKey('room', '7') // 'room\u00007'
 */
export function groupKey(name: string, value: string): string {
  return `${name}\u0000${value}`;
}

/** Sessions by user and by group. */
export class SessionIndex {
  readonly #byOpenid = new Map<string, Set<string>>();
  readonly #groups = new Map<string, Set<string>>();

  /** The session ids of a user's open connections. */
  sessionsOf(openid: string): string[] {
    return [...(this.#byOpenid.get(openid) ?? [])];
  }

  /** The session ids in a group. */
  groupMembers(name: string, value: string): string[] {
    return [...(this.#groups.get(groupKey(name, value)) ?? [])];
  }

  /** A session of a user opened. */
  addUser(openid: string, sessionId: string): void {
    let users = this.#byOpenid.get(openid);
    if (users === undefined) this.#byOpenid.set(openid, (users = new Set()));
    users.add(sessionId);
  }

  /** A session joined the group of `key`. */
  join(key: string, sessionId: string): void {
    let members = this.#groups.get(key);
    if (members === undefined) this.#groups.set(key, (members = new Set()));
    members.add(sessionId);
  }

  /** A session left the group of `key`; a group left empty is dropped. */
  leave(key: string, sessionId: string): void {
    const members = this.#groups.get(key);
    members?.delete(sessionId);
    if (members?.size === 0) this.#groups.delete(key);
  }

  /** A session ended: taken out of its user's and its groups (`groups`, their keys). */
  forget(sessionId: string, openid: string, groups: Iterable<string>): void {
    const users = this.#byOpenid.get(openid);
    users?.delete(sessionId);
    if (users?.size === 0) this.#byOpenid.delete(openid);
    for (const group of groups) this.leave(group, sessionId);
  }
}
