/** Temporary projects written at test time: functions/ files, a package.json, a config file. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TempProject {
  root: string;
  write(path: string, text: string): void;
  remove(): void;
}

/**
 * Creates a project folder with the given files (paths relative to the root).
 * @example const project = tempProject({ 'functions/hello.ts': 'export default () => 1' })
 */
export function tempProject(files: Record<string, string>, parent = tmpdir()): TempProject {
  const root = mkdtempSync(join(parent, 'cloudfn-test-'));
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write('package.json', JSON.stringify({ name: 'fixture', private: true, type: 'module' }));
  for (const [path, text] of Object.entries(files)) write(path, text);
  return { root, write, remove: () => rmSync(root, { recursive: true, force: true }) };
}
