/**
 * A function whose module never finishes loading (a top-level await that never settles) in a
 * platform-layout project: the others keep answering at once, it is marked failed with its file
 * within `loadTimeout`, and fixing or removing it recovers it without a restart. Discovery at the
 * root leaves the user's scripts, tools, bin, `.gitignore` entries and `functionsIgnore` alone.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure, reloadEvent, startProject, type DevProject } from './project.js';

const PLATFORM = fileURLToPath(new URL('../fixtures/platform-root', import.meta.url));
const BOUND_MS = 1500;
const HANG = "await new Promise(() => {});\nexport default async () => 'never';\n";

describe('cloudfn dev with a module that never finishes loading', () => {
  let project: DevProject;
  beforeAll(async () => {
    project = await startProject({ loadTimeoutMs: BOUND_MS }, PLATFORM);
  });
  afterAll(() => project.close());

  it('keeps answering every other function while one hangs, and names the hanging file', async () => {
    const failed = project.next(failure('zz_hang'), BOUND_MS * 4);
    const started = Date.now();
    project.write('zz_hang.ts', HANG);
    // Once the watcher has seen the save (under load its event can take longer than any sleep).
    await expect.poll(() => project.dev.applying(), { interval: 5, timeout: BOUND_MS }).toBe(true);
    // The save is being applied: a request elsewhere does not wait for the hanging module.
    const other = await project.get('/get_open_id');
    expect(other.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(BOUND_MS);
    // A request to the hanging function waits, but no longer than the bound.
    const hung = await project.get('/zz_hang');
    expect(hung.status).toBe(503);
    expect(hung.json.error.code).toBe('CLOUDFN_DEV_LOAD_TIMEOUT');
    expect(hung.json.error.message).toContain('zz_hang.ts did not finish loading');
    expect(hung.json.error.message).toContain('its top-level await has not settled after 1.5 s');
    expect(Date.now() - started).toBeLessThan(BOUND_MS * 3);
    const record = await failed;
    expect(record.msg).toContain('zz_hang.ts did not finish loading');
    const status = project.dev.functions().find((fn) => fn.name === 'zz_hang');
    expect(status).toMatchObject({ status: 'error', file: 'zz_hang.ts' });
    expect(status?.error).toContain('its top-level await has not settled');
  });

  it('recovers the function when the file is fixed, then forgets it when removed', async () => {
    const reloaded = project.next(reloadEvent('reloaded', 'zz_hang'), 5000);
    project.write('zz_hang.ts', "export default async () => 'fixed';\n");
    await reloaded;
    expect((await project.get('/zz_hang')).text).toBe('fixed');
    const removed = project.next(reloadEvent('removed', 'zz_hang'), 5000);
    project.remove('zz_hang.ts');
    await removed;
    expect((await project.get('/zz_hang')).status).toBe(404);
    expect((await project.get('/get_open_id')).status).toBe(200);
  });

  it('takes no file of scripts/, tools/, bin/ or .gitignore as a function, and says what it took', async () => {
    project.write('scripts/two-rooms.mjs', 'export default async () => 1;\n');
    project.write('tools/seed.ts', 'export default async () => 1;\n');
    project.write('bin/run.js', 'module.exports = async () => 1;\n');
    project.write('.gitignore', 'scratch/\n*.local.ts\n');
    project.write('scratch/try.ts', 'export default async () => 1;\n');
    project.write('mine.local.ts', 'export default async () => 1;\n');
    const added = project.next(reloadEvent('added', 'visible'), 5000);
    project.write('visible.ts', 'export default async () => 1;\n');
    await added;
    await project.dev.settled();
    expect(project.dev.functions().map((fn) => fn.name)).toEqual(['get_open_id', 'start_game', 'visible']);
    const took = project.records.find((r) => r['event'] === 'discovered');
    expect(took?.['files']).toEqual(['get_open_id.ts', 'start_game.ts']);
  });
});

describe('functionsIgnore', () => {
  it('leaves the paths it names out of discovery', async () => {
    const { discoverFunctions } = await import('../../runtime/serve/discover.js');
    const names = discoverFunctions(PLATFORM, '.', { ignore: ['start_*.ts'] }).map((fn) => fn.name);
    expect(names).toEqual(['get_open_id']);
  });
});
