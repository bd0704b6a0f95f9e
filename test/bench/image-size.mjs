#!/usr/bin/env node
/**
 * The container image's size (issue 56): the starter template, and the starter with N generated
 * functions added (lib/build-scale.mjs's, zod params, a shared helper, one importing semver),
 * each built with podman from the template's own Dockerfile (`podman build --format docker`)
 * and this cloudfn packed into it, as the container test does. Prints each image's size, its
 * size over the `node:24-slim` base, and the bytes of `/app/dist` inside it; removes the images.
 * Slow (an `npm ci` and a build per image); not part of `npm test` or `npm run bench`.
 *
 *   node test/bench/image-size.mjs [100]
 *
 * Needs podman and the base image: node test/setup/container-image.mjs sets both up.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE_IMAGE, CONTAINERS_CONF } from '../setup/container-image.mjs';
import { generateProject } from './lib/build-scale.mjs';
import { vendorCloudfn } from '../setup/vendor-cloudfn.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli/index.js');
const count = Number(process.argv[2] ?? 100);
const env = { ...process.env, CONTAINERS_CONF };
const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;
const podman = (...args) => execFileSync('podman', args, { env, encoding: 'utf8' }).trim();

/** A starter project in `dir`, cloudfn packed into its vendor/, `more` adding to it. */
function project(dir, tgz, more) {
  execFileSync(process.execPath, [CLI, 'init', dir, '--template', 'starter'], { env, stdio: 'ignore' });
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  more?.(dir, pkg);
  vendorCloudfn(dir, tgz, pkg, 'cloudfn.tgz');
  rmSync(join(dir, 'package-lock.json'), { force: true });
  execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], {
    cwd: dir,
    env,
    stdio: 'ignore',
  });
}

/** Builds `dir`'s image, measures it, removes it. */
function measure(name, dir) {
  // An image reference takes no blanks or `+`: the name as lower-case words joined by hyphens.
  const tag = `localhost/cloudfn-image-size-${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}:latest`;
  const started = Date.now();
  const build = spawnSync('podman', ['build', '--format', 'docker', '--pull=never', '-t', tag, '.'], {
    cwd: dir,
    env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (build.status !== 0)
    throw new Error(`building the image of ${name} with podman failed:\n${build.stderr.slice(-4000)}`);
  try {
    const size = Number(podman('image', 'inspect', '--format', '{{.Size}}', tag));
    const base = Number(podman('image', 'inspect', '--format', '{{.Size}}', BASE_IMAGE));
    const dist = Number(podman('run', '--rm', '--entrypoint', 'sh', tag, '-c', 'du -sb /app/dist').split(/\s/)[0]);
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(`| ${name} | ${mb(size)} | ${mb(size - base)} | ${mb(dist)} | ${seconds} s |`);
  } finally {
    spawnSync('podman', ['rmi', '-f', tag], { env, stdio: 'ignore' });
  }
}

const work = mkdtempSync(join(tmpdir(), 'cloudfn-image-size-'));
try {
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: ROOT, env, stdio: 'ignore' });
  const tgz = join(
    work,
    readdirSync(work).find((f) => f.endsWith('.tgz')),
  );
  console.log('| project | image | over the base | /app/dist | build |');
  console.log('|---|---|---|---|---|');
  project(join(work, 'starter'), tgz);
  measure('starter', join(work, 'starter'));
  project(join(work, 'many'), tgz, (dir, pkg) => {
    const generated = join(work, 'generated');
    generateProject(generated, count, ROOT);
    cpSync(join(generated, 'functions'), join(dir, 'functions'), { recursive: true });
    // The starter's tsconfig is NodeNext: a relative import names its .js file.
    for (const file of readdirSync(join(dir, 'functions'), { recursive: true, encoding: 'utf8' }))
      if (/^g\d+\/fn-\d+\.ts$/.test(file)) {
        const path = join(dir, 'functions', file);
        writeFileSync(path, readFileSync(path, 'utf8').replace("from '../_shared'", "from '../_shared.js'"));
      }
    pkg.dependencies.semver = '^7.6.0';
    pkg.devDependencies['@types/semver'] = '^7.5.0';
  });
  measure(`starter + ${count} functions`, join(work, 'many'));
} finally {
  rmSync(work, { recursive: true, force: true });
}
