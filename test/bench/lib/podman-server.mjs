/**
 * `cloudfn start` of a small project in a podman container with a memory limit (`--memory`),
 * for issue 32's loads: the base image of test/setup/container-image.mjs (Node, nothing else)
 * with this checkout mounted read-only at its own path and the project at /app; host networking
 * (test/setup/containers.conf), listening on 127.0.0.1 only. While it runs, the container's
 * memory cgroup is sampled; at the end its peak, node's peak RSS and whether it was OOM-killed
 * are read back, and the container is removed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const MIB = 1024 * 1024;
/** The image test/setup/container-image.mjs builds (Debian and Node, from no registry). */
export const BASE_IMAGE = 'docker.io/library/node:24-slim';

/** The functions the loads call: a small answer, a 5 MiB one, and any body. */
const FUNCTIONS = {
  'small.mjs': "export default () => 'ok';\n",
  'big.mjs': "const big = 'x'.repeat(5 * 1024 * 1024);\nexport default () => big;\n",
  'upload.mjs': 'export default (params) => ({ size: params.length });\n',
};

/** podman's environment for these machines: the repository's containers.conf. */
export function podmanEnv(repo) {
  return { ...process.env, CONTAINERS_CONF: join(repo, 'test/setup/containers.conf') };
}

/** Why podman cannot run the server here, or undefined when it can. */
export function podmanMissing(repo) {
  const probe = spawnSync('podman', ['image', 'exists', BASE_IMAGE], { env: podmanEnv(repo), stdio: 'ignore' });
  if (probe.error !== undefined) return 'podman is not installed (node test/setup/container-image.mjs installs it)';
  if (probe.status !== 0) return `${BASE_IMAGE} is missing (node test/setup/container-image.mjs builds it)`;
  return undefined;
}

/**
 * Starts the container and resolves once its health path answers 200.
 * @param {{ repo: string, cli: string, port: number, memory: string, name: string }} options
 *   `cli`: the built CLI (`<repo>/dist/src/cli/index.js`, or another build's); `memory`: podman's `--memory`.
 * @example const server = await startPodmanServer({ repo, cli, port, memory: '512m', name: 'overload-idle' })
 */
export async function startPodmanServer({ repo, cli, port, memory, name }) {
  const env = podmanEnv(repo);
  const project = mkdtempSync(join(tmpdir(), 'cloudfn-podman-server-'));
  mkdirSync(join(project, 'functions'));
  writeFileSync(join(project, 'package.json'), '{ "name": "overload", "private": true, "type": "module" }\n');
  for (const [file, text] of Object.entries(FUNCTIONS)) writeFileSync(join(project, 'functions', file), text);
  // The checkout, and the one the CLI was built in (<checkout>/dist/src/cli/index.js), if another.
  const built = dirname(dirname(dirname(dirname(resolve(cli)))));
  const mounts = [...new Set([resolve(repo), built])].flatMap((dir) => ['-v', `${dir}:${dir}:ro`]);
  const podman = (...args) =>
    execFileSync('podman', args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  spawnSync('podman', ['rm', '-f', name], { env, stdio: 'ignore' });
  try {
    podman(
      'run',
      '-d',
      '--name',
      name,
      '--memory',
      memory,
      ...mounts,
      '-v',
      `${project}:/app`,
      '-w',
      '/app',
      BASE_IMAGE,
      'node',
      cli,
      'start',
      '/app',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
    );
  } catch (error) {
    rmSync(project, { recursive: true, force: true });
    throw error;
  }
  const cgroup = cgroupFiles(podman('inspect', '--format', '{{.State.CgroupPath}}', name).trim());
  const pid = Number(podman('inspect', '--format', '{{.State.Pid}}', name).trim());
  let peak = 0;
  let oomKills = 0;
  const sample = () => {
    try {
      peak = Math.max(peak, Number(readFileSync(cgroup.peak, 'utf8')));
      oomKills = Math.max(oomKills, Number(/oom_kill (\d+)/.exec(readFileSync(cgroup.events, 'utf8'))?.[1] ?? 0));
    } catch {
      // The cgroup is gone with the container; the last sample stands.
    }
  };
  const timer = setInterval(sample, 200);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/_cloudfn/health`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      clearInterval(timer);
      const logs = spawnSync('podman', ['logs', name], { env, encoding: 'utf8' });
      spawnSync('podman', ['rm', '-f', name], { env, stdio: 'ignore' });
      rmSync(project, { recursive: true, force: true });
      throw new Error(`the container ${name} did not serve within 30 s:\n${logs.stdout}${logs.stderr}`);
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  return {
    port,
    /**
     * Reads the figures, then removes the container and the project.
     * @returns {{ cgroupPeakMiB: number, peakRssMiB: number | null, oomKilled: boolean, oomKills: number, survived: boolean, exitCode: number | null }}
     */
    finish() {
      sample();
      clearInterval(timer);
      const [running, oomKilled, exitCode] = podman(
        'inspect',
        '--format',
        '{{.State.Running}} {{.State.OOMKilled}} {{.State.ExitCode}}',
        name,
      )
        .trim()
        .split(' ');
      const survived = running === 'true';
      const figures = {
        cgroupPeakMiB: Math.round(peak / MIB),
        peakRssMiB: survived ? vmHwmMiB(pid) : null,
        oomKilled: oomKilled === 'true' || oomKills > 0,
        oomKills,
        survived,
        exitCode: survived ? null : Number(exitCode),
      };
      spawnSync('podman', ['rm', '-f', '--time', '2', name], { env, stdio: 'ignore' });
      rmSync(project, { recursive: true, force: true });
      return figures;
    },
  };
}

/** The peak-usage and events files of a container's memory cgroup, v1 or v2. */
function cgroupFiles(path) {
  const v1 = join('/sys/fs/cgroup/memory', path);
  if (existsSync(join(v1, 'memory.max_usage_in_bytes')))
    return { peak: join(v1, 'memory.max_usage_in_bytes'), events: join(v1, 'memory.oom_control') };
  const v2 = join('/sys/fs/cgroup', path);
  return { peak: join(v2, 'memory.peak'), events: join(v2, 'memory.events') };
}

/** Node's peak RSS (VmHWM) in MiB; the container's PID 1 is node, seen from the host. */
function vmHwmMiB(pid) {
  try {
    const kib = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Number.isFinite(kib) ? Math.round(kib / 1024) : null;
  } catch {
    return null;
  }
}
