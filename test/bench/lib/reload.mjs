/**
 * The dev reload row: with `startDevServer` serving a copy of the hello project, the time
 * from saving a changed function file until a GET answers with the new code.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { skippedRow } from './rows.mjs';

const BENCHMARK = 'dev reload: save until the new code answers';

export async function reloadRow({ root }) {
  const entry = join(root, 'dist/src/dev/index.js');
  if (!existsSync(entry)) {
    return skippedRow({ id: 'reload', benchmark: BENCHMARK, baseline: '—', goal: '<= 250 ms (median)', reason: 'not available yet: startDevServer (src/dev) is not in dist/' });
  }
  const dev = await import(entry);
  if (typeof dev.startDevServer !== 'function') {
    return skippedRow({ id: 'reload', benchmark: BENCHMARK, baseline: '—', goal: '<= 250 ms (median)', reason: 'not available yet: dist/src/dev/index.js has no startDevServer' });
  }
  return skippedRow({ id: 'reload', benchmark: BENCHMARK, baseline: '—', goal: '<= 250 ms (median)', reason: 'not measured' });
}
