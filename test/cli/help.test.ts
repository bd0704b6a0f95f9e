/** `--help` ends with the absolute paths of the command's pages inside the installed package. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, ensureDist } from '../testing/ensure-dist.js';

const CLI = join(REPO, 'dist/src/cli/index.js');

describe('--help', () => {
  it.each([
    ['dev', ['dev.md', 'platform.md']],
    ['start', ['configuration.md', 'deploy.md', 'observability.md']],
    ['trigger', ['observability.md']],
    ['build', ['build.md', 'deploy.md']],
    ['init', ['deploy.md']],
    ['sign', ['signing.md']],
    ['platform', ['platform.md']],
  ])('of %s prints where its pages are, and they exist', (command, pages) => {
    ensureDist();
    const run = spawnSync(process.execPath, [CLI, command, '--help'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^usage: cloudfn /);
    const listed = [...run.stdout.matchAll(/^(?:docs:| {5}) (\/\S+\.md)$/gm)].map((m) => m[1]!);
    expect(listed).toEqual(pages.map((page) => join(REPO, 'docs', page)));
    for (const file of listed) expect(existsSync(file), file).toBe(true);
  });

  it('of cloudfn itself points at the docs folder', () => {
    const run = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    expect(run.stdout).toContain(`docs: ${join(REPO, 'docs')}/ (one page per capability)`);
  });
});
