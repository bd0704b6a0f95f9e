/**
 * The young-generation cap cloudfn adds to the node processes it starts (runtime/serve/young-generation.ts),
 * and that the Node versions it is added on take it.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { YOUNG_GENERATION_FLAG, youngGenerationArgv } from '../../../runtime/serve/young-generation.js';

describe('youngGenerationArgv', () => {
  it('adds the cap from Node 24 on, keeping the flags given', () => {
    expect(youngGenerationArgv(['--enable-source-maps'], '24.0.0')).toEqual([
      '--enable-source-maps',
      YOUNG_GENERATION_FLAG,
    ]);
    expect(youngGenerationArgv([], '26.1.0')).toEqual([YOUNG_GENERATION_FLAG]);
  });

  it('adds nothing before Node 24, where node 20 and 14 refuse the flag', () => {
    expect(youngGenerationArgv(['--inspect'], '22.23.5')).toEqual(['--inspect']);
    expect(youngGenerationArgv([], '20.20.2')).toEqual([]);
    expect(youngGenerationArgv([], '14.21.3')).toEqual([]);
  });

  it('adds nothing when the command line or NODE_OPTIONS already sizes the young generation', () => {
    expect(youngGenerationArgv(['--scavenger-max-new-space-capacity-mb=16'], '24.0.0')).toEqual([
      '--scavenger-max-new-space-capacity-mb=16',
    ]);
    expect(youngGenerationArgv(['--max-semi-space-size=32'], '24.0.0')).toEqual(['--max-semi-space-size=32']);
    expect(youngGenerationArgv([], '24.0.0', '--enable-source-maps --max-semi-space-size=4')).toEqual([]);
  });

  it('is a flag the running node accepts on its command line from Node 22 on', () => {
    const major = Number(process.versions.node.split('.')[0]);
    const run = spawnSync(process.execPath, [YOUNG_GENERATION_FLAG, '-e', 'process.stdout.write("ok")'], {
      encoding: 'utf8',
    });
    if (major >= 22) expect(run.stdout, run.stderr).toBe('ok');
    else expect(run.stderr).toContain('bad option');
  });
});
