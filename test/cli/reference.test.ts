/** docs/cli.md is generated from the commands' help; this fails when it is stale. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_REFERENCE_PATH, cliReference } from '../../src/cli/reference.js';
import { REPO } from '../testing/ensure-dist.js';

describe('docs/cli.md', () => {
  it('is what the help generates (run npm run reference when this fails)', async () => {
    const page = await cliReference();
    expect(readFileSync(join(REPO, CLI_REFERENCE_PATH), 'utf8')).toBe(page);
    for (const name of [
      'start',
      'dev',
      'trigger',
      'build',
      'init',
      'keys',
      'sign',
      'verify',
      'doctor',
      'openapi',
      'client',
      'platform',
    ])
      expect(page).toContain(`## cloudfn ${name}\n`);
  });

  it('is linked from the docs index and the README', () => {
    expect(readFileSync(join(REPO, 'docs/README.md'), 'utf8')).toContain('(cli.md)');
    expect(readFileSync(join(REPO, 'README.md'), 'utf8')).toContain('docs/README.md');
  });
});
