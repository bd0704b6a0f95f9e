// The package as npm publishes it, checked by publint (package.json fields, files, exports) and
// @arethetypeswrong/cli (its types under every moduleResolution, node10 included): packed once,
// without running prepack (npm test built dist/ already), into a temp folder removed after.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'cloudfn-pack-'));
const run = (command, args) => execFileSync(command, args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
try {
  const [packed] = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir]));
  const tarball = join(dir, packed.filename);
  process.stdout.write(run('npx', ['--no-install', 'publint', 'run', tarball, '--strict']));
  process.stdout.write(
    run('npx', ['--no-install', 'attw', tarball, '--format', 'table-flipped', '--ignore-rules', 'cjs-resolves-to-esm']),
  );
} catch (error) {
  if (error.stdout) process.stdout.write(error.stdout);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
