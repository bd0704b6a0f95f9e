/**
 * The one help format: every command answers `--help` and `cloudfn help <command>` with the
 * same text, a usage line, options and examples whose flags exist, and its pages' paths.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';

const CLI = join(REPO, 'dist/src/cli/index.js');
const cloudfn = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
const NAMES = [
  'start',
  'dev',
  'trigger',
  'live',
  'db',
  'build',
  'init',
  'keys',
  'sign',
  'verify',
  'doctor',
  'openapi',
  'client',
  'platform',
];

describe('--help', () => {
  it('covers the fourteen commands', () => {
    expect(Object.keys(commands)).toEqual(NAMES);
  });

  it.each(NAMES)('of %s is the one format, and cloudfn help %s prints the same', (name) => {
    ensureDist();
    const run = cloudfn([name, '--help']);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(new RegExp(`^usage: cloudfn ${name}\\b`));
    expect(run.stdout).toMatch(/\n\noptions:\n {2}\S/);
    expect(run.stdout).toMatch(new RegExp(`\\n\\nexamples:\\n {2}# .+\\n {2}cloudfn ${name}\\b`));
    expect(run.stdout).toContain('  -h, --help');
    const listed = [...run.stdout.matchAll(/^(?:docs:| {5}) (\/\S+\.md)$/gm)].map((m) => m[1]!);
    expect(listed.length).toBeGreaterThan(0);
    for (const file of listed) expect(existsSync(file), file).toBe(true);
    const viaHelp = cloudfn(['help', name]);
    expect(viaHelp.status).toBe(0);
    expect(viaHelp.stdout).toBe(run.stdout);
  });

  it.each(NAMES)('of %s gives examples that use only its own flags', async (name) => {
    const { HELP } = await commands[name]!.load();
    expect(HELP.name).toBe(name);
    expect(HELP.examples.length).toBeGreaterThan(0);
    const flags = new Set(HELP.options.flatMap(([flag]) => [...flag.matchAll(/--[a-z-]+/g)].map((m) => m[0])));
    for (const [line] of HELP.examples) {
      expect(line.startsWith(name), line).toBe(true);
      for (const used of line.matchAll(/(?<=\s)--[a-z-]+/g)) expect(flags, `${line}: ${used[0]}`).toContain(used[0]);
    }
  });

  it.each([
    ['keys', 'generate'],
    ['keys', 'inspect'],
    ['platform', 'keys'],
  ])("of a subcommand (%s %s --help) is its command's help", (name, sub) => {
    const run = cloudfn([name, sub, '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(cloudfn([name, '--help']).stdout);
  });

  it('of cloudfn itself lists the commands and points at the docs folder', () => {
    const run = cloudfn(['--help']);
    expect(run.stdout).toContain('cloudfn help <command>');
    expect(run.stdout).toContain(`docs: ${join(REPO, 'docs')}/ (README.md indexes the pages`);
    for (const name of NAMES) expect(run.stdout).toMatch(new RegExp(`^ {2}${name} +\\S`, 'm'));
    expect(cloudfn(['help']).stdout).toBe(run.stdout);
  });

  it('of an unknown command is one line with the likely one', () => {
    const run = cloudfn(['help', 'devv']);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('cloudfn: unknown command "devv"; did you mean dev?\n');
    expect(cloudfn(['biuld']).stderr).toBe('cloudfn: unknown command "biuld"; did you mean build?\n');
  });
});
