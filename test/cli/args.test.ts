/** The CLI's argument parsing: unknown flags name the closest known one, or list them. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OptionsError, parseCommandArgs, unknownOption } from '../../src/cli/args.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  inspect: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

describe('unknown flags', () => {
  it('suggest the closest flag for a typo', () => {
    expect(() => parseCommandArgs(['--prot', '8000'], OPTIONS)).toThrow(
      new OptionsError('unknown option --prot; did you mean --port?'),
    );
    expect(() => parseCommandArgs(['--prot=8000'], OPTIONS)).toThrow('unknown option --prot; did you mean --port?');
    expect(unknownOption('--hots', ['port', 'host'])).toBe('unknown option --hots; did you mean --host?');
    expect(unknownOption('--inspekt', ['port', 'inspect'])).toBe('unknown option --inspekt; did you mean --inspect?');
  });

  it('list the flags when nothing is close', () => {
    expect(() => parseCommandArgs(['--verbose'], OPTIONS)).toThrow(
      'unknown option --verbose; the options are --port, --host, --inspect, --help',
    );
    expect(() => parseCommandArgs(['-x'], OPTIONS)).toThrow(
      'unknown option -x; the options are --port, --host, --inspect, --help',
    );
  });

  it('reach the user as one line from the CLI', () => {
    ensureDist();
    const run = spawnSync(process.execPath, [join(REPO, 'dist/src/cli/index.js'), 'dev', '--prot', '8000'], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('cloudfn: unknown option --prot; did you mean --port?\n');
  });
});
