#!/usr/bin/env node
/**
 * Installs the Debian packages the tests use when they are missing: openssl (golden signature
 * vectors), ffmpeg (the platform emulator's media jobs), chromium (the console page test),
 * redis-server (the fleet's shared stores and the app's Redis component), mariadb-server (the
 * app's MySQL component), wrk (the load generator of `npm run bench` and
 * `npm run soak`; the quick harness test uses autocannon instead) and haproxy (the balancer in
 * front of the WebSocket fleet test's three `cloudfn start` processes).
 * Runs before `npm test`. As root it installs with apt-get; otherwise it prints the command.
 * Under CI=true a package that is still missing afterwards fails the run, so no test is
 * skipped silently there.
 */
import { execFileSync, spawnSync } from 'node:child_process';

const wanted = [
  { command: 'openssl', pkg: 'openssl' },
  { command: 'ffmpeg', pkg: 'ffmpeg' },
  { command: 'ffprobe', pkg: 'ffmpeg' },
  { command: 'chromium', pkg: 'chromium' },
  { command: 'redis-server', pkg: 'redis-server' },
  { command: 'mariadbd', pkg: 'mariadb-server' },
  { command: 'wrk', pkg: 'wrk' },
  { command: 'haproxy', pkg: 'haproxy' },
];

const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const missing = [...new Set(wanted.filter((w) => !has(w.command)).map((w) => w.pkg))];

if (missing.length > 0) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && has('apt-get')) {
    console.log(`cloudfn tests: installing ${missing.join(', ')} with apt-get`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { stdio: 'inherit', env });
  } else {
    console.log(
      `cloudfn tests: missing ${missing.join(', ')}; install them with: sudo apt-get install ${missing.join(' ')} (tests that need them are skipped)`,
    );
  }
  const still = wanted.filter((w) => !has(w.command)).map((w) => w.command);
  if (still.length > 0 && process.env.CI === 'true') {
    console.error(`cloudfn tests: ${still.join(', ')} still missing under CI; refusing to skip their tests`);
    process.exit(1);
  }
}
