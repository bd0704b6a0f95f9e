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

  it('adds nothing before Node 24, whose young generation already stays at that size', () => {
    expect(youngGenerationArgv(['--inspect'], '22.23.5')).toEqual(['--inspect']);
    expect(youngGenerationArgv([], '20.20.2')).toEqual([]);
    expect(youngGenerationArgv([], '14.21.3')).toEqual([]);
  });

  it('adds nothing when the command line or NODE_OPTIONS already sizes the young generation', () => {
    expect(youngGenerationArgv(['--scavenger-max-new-space-capacity-mb=16'], '24.0.0')).toEqual([
      '--scavenger-max-new-space-capacity-mb=16',
    ]);
    expect(youngGenerationArgv(['--max-semi-space-size=32'], '24.0.0')).toEqual(['--max-semi-space-size=32']);
    expect(youngGenerationArgv(['--max_semi_space_size=8'], '26.0.0')).toEqual(['--max_semi_space_size=8']);
    expect(youngGenerationArgv([], '24.0.0', '--enable-source-maps --max-semi-space-size=4')).toEqual([]);
  });

  // CI runs this file on Node 20, 22, 24 and 26: the flag must be one each of them takes (Node
  // 24's --scavenger-max-new-space-capacity-mb was not: Node 25's V8 dropped it).
  it('is a flag the running node accepts on its command line, capping the new space at 32 MB', () => {
    // Objects that survive scavenges make V8 grow the new space to its largest size.
    const grow = [
      'const v8 = require("v8"); let keep = []; let most = 0;',
      'for (let i = 0; i < 2e6; i++) { keep.push({ i }); if (keep.length > 20000) keep = keep.slice(10000);',
      '  if (i % 10000 === 0) most = Math.max(most, v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size); }',
      'process.stdout.write(String(most / 1048576));',
    ].join('\n');
    const run = spawnSync(process.execPath, [YOUNG_GENERATION_FLAG, '-e', grow], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(Number(run.stdout)).toBeGreaterThan(0);
    expect(Number(run.stdout)).toBeLessThanOrEqual(32);
  });
});
