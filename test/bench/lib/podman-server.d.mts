/** Types of ./podman-server.mjs, for the container test. */

export const BASE_IMAGE: string;

export function podmanEnv(repo: string): NodeJS.ProcessEnv;

export function podmanMissing(repo: string): string | undefined;

/** What `finish()` reads back before it removes the container. */
export interface ContainerFigures {
  /** The container's memory cgroup peak (memory.max_usage_in_bytes, or memory.peak on cgroup v2). */
  cgroupPeakMiB: number;
  /** Node's VmHWM; null once it is gone. */
  peakRssMiB: number | null;
  oomKilled: boolean;
  oomKills: number;
  survived: boolean;
  exitCode: number | null;
}

export interface PodmanServer {
  port: number;
  finish(): ContainerFigures;
}

export function startPodmanServer(options: {
  repo: string;
  cli: string;
  port: number;
  memory: string;
  name: string;
}): Promise<PodmanServer>;
