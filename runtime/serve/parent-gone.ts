/**
 * Watching the parent process: `cloudfn dev` and `cloudfn start` under npm stop when it goes
 * (shutdown.ts), a cluster's workers when their primary does (cluster.ts). Its own module, so a
 * bundle, which never watches its parent, does not read it at start (issue 44).
 */

/** How often the parent's pid is compared; a check costs one property read. */
const PARENT_CHECK_MS = 500;

/** The parent as this process saw it when the watch was asked for. */
export interface ParentSeen {
  ppid: number;
  /** Whether the IPC channel to it was open. */
  connected: boolean;
}

function current(): ParentSeen {
  return { ppid: process.ppid, connected: process.connected };
}

/**
 * Calls `gone` once the parent process is gone (its IPC channel closes, or this process is
 * re-parented from `seen.ppid`); returns how to stop watching.
 * @example const stop = onParentGone(() => server.close())
 */
export function onParentGone(gone: () => void, seen: ParentSeen = current()): () => void {
  const parent = seen.ppid;
  const onDisconnect = (): void => gone();
  if (process.connected) process.on('disconnect', onDisconnect);
  // The channel closed between `seen` and now (while this module loaded): gone already.
  else if (seen.connected) queueMicrotask(gone);
  // A process started by init (pid 1, e.g. PID 1's child in a container) cannot tell.
  const timer =
    parent > 1
      ? setInterval(() => {
          if (process.ppid !== parent) gone();
        }, PARENT_CHECK_MS).unref()
      : undefined;
  return () => {
    clearInterval(timer);
    process.off('disconnect', onDisconnect);
  };
}
