/**
 * What `cloudfn dev` says when it cannot start: a function name under `functions` in
 * cloudfn.config that matches no file, and the functions folder given instead of the project.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDevServer } from '../../src/dev/index.js';

const root = mkdtempSync(join(tmpdir(), 'cloudfn-dev-messages-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe('cloudfn dev start-up messages', () => {
  it('stops when cloudfn.config names an unknown function under functions, naming the known ones', async () => {
    write('functions/hello.ts', 'export default () => 1;\n');
    write('functions/videos/list.ts', 'export default () => [];\n');
    write('cloudfn.config.json', '{ "functions": { "video/list": { "timeout": 100 } } }\n');
    await expect(startDevServer({ root, port: 0, sink: { write() {} } })).rejects.toThrow(
      'cloudfn.config.json: functions.video/list names no function of this project (the functions are hello, videos/list); use a name from functions/',
    );
  });

  it('suggests the project root when given the functions folder', async () => {
    await expect(startDevServer({ root: join(root, 'functions'), port: 0, sink: { write() {} } })).rejects.toThrow(
      `${join(root, 'functions', 'functions')}: there is no functions folder: ${join(root, 'functions')} is the functions folder itself; pass the project root that holds it, ${root} (e.g. cloudfn dev . from there)`,
    );
  });
});
