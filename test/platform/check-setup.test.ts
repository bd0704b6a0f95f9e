/**
 * The platform around `--check` of the function service (src/platform/services/check-setup.ts):
 * `SERVICE_ID` and `CLOUD_ENV`, a component's variables from the local server `cloudfn dev`
 * started (a real redis-server), a note when none runs, and the sibling services' built files,
 * from an app root's `services` or the folders beside.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startComponents } from '../../src/platform/components/index.js';
import { COMPONENTS_DIR } from '../../src/platform/components/service.js';
import { checkPlatform } from '../../src/platform/services/check-setup.js';

const app = mkdtempSync(join(tmpdir(), 'cloudfn-check-setup-'));
afterAll(() => rmSync(app, { recursive: true, force: true }));

function service(folder: string, config: object, built = false): string {
  const root = join(app, folder);
  mkdirSync(join(root, 'functions'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{ "private": true }\n');
  writeFileSync(join(root, 'cloudfn.config.json'), JSON.stringify(config));
  if (built) {
    mkdirSync(join(root, 'dist', 'function-service'), { recursive: true });
    writeFileSync(join(root, 'dist', 'function-service', 'cloudfn-build.json'), '{}\n');
  }
  return root;
}

describe('checkPlatform', () => {
  it('sets SERVICE_ID and CLOUD_ENV, and notes a component with no server running', async () => {
    const game = service('game', { serviceId: 'game', innerCall: ['rank'], components: { redis: true } });
    const platform = await checkPlatform(game, {});
    expect(platform.env).toEqual({ SERVICE_ID: 'game', CLOUD_ENV: 'DEV' });
    expect(platform.service.innerCall).toEqual(['rank']);
    expect(platform.notes).toEqual([
      'component redis: no local server runs (cloudfn dev starts it, in .cloudfn/components/redis), so REDIS_ADDRESS is not set for the check; start cloudfn dev, or give its URL in components.redis',
    ]);
    expect((await checkPlatform(game, { CLOUD_ENV: 'PROD' })).env['CLOUD_ENV']).toBe('PROD');
  });

  it("gives a component's variables from the local server cloudfn dev started, as dev does", async () => {
    const root = service('scores', { components: { redis: true } });
    const components = await startComponents({ redis: true }, { dir: join(root, COMPONENTS_DIR) });
    try {
      const platform = await checkPlatform(root, {});
      expect(platform.notes).toEqual([]);
      expect(platform.env).toEqual({ SERVICE_ID: 'scores', CLOUD_ENV: 'DEV', ...components.env });
      expect(platform.env['REDIS_ADDRESS']).toMatch(/^127\.0\.0\.1:\d+$/);
    } finally {
      await components.stop();
    }
  }, 60_000);

  it("finds the built sibling services beside it, or those the app root's services lists", async () => {
    const root = service('lobby', { serviceId: 'lobby' });
    service('rank-service', { serviceId: 'rank' }, true);
    service('profile', {}, true);
    service('unbuilt', { serviceId: 'unbuilt' });
    const beside = await checkPlatform(root, {});
    expect(Object.fromEntries(beside.siblings)).toEqual({
      rank: join(app, 'rank-service', 'dist', 'function-service'),
      profile: join(app, 'profile', 'dist', 'function-service'),
    });
    writeFileSync(join(app, 'cloudfn.config.json'), JSON.stringify({ services: ['lobby', 'profile'] }));
    const listed = await checkPlatform(root, {});
    expect([...listed.siblings.keys()]).toEqual(['profile']);
  });
});
