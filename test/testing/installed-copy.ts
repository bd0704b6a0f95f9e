/**
 * cloudfn as a user's project holds it after `npm install`: `<root>/node_modules/cloudfn` with
 * package.json and dist/ only (no .ts sources beside it), and its dependencies (links into this
 * checkout's node_modules) but none of its optional peers. Needs dist/ (ensureDist).
 */
import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './ensure-dist.js';

/**
 * Installs the copy into `root`; returns its folder.
 * @example const installed = installCopy(project.root); // .../node_modules/cloudfn
 */
export function installCopy(root: string): string {
  const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const installed = join(root, 'node_modules', 'cloudfn');
  mkdirSync(installed, { recursive: true });
  cpSync(join(REPO, 'package.json'), join(installed, 'package.json'));
  cpSync(join(REPO, 'dist'), join(installed, 'dist'), { recursive: true });
  for (const name of Object.keys(manifest.dependencies)) {
    mkdirSync(join(root, 'node_modules', name, '..'), { recursive: true });
    symlinkSync(join(REPO, 'node_modules', name), join(root, 'node_modules', name));
  }
  return installed;
}
