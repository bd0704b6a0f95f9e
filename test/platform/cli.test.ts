/**
 * The real CLI: `cloudfn platform` from the built package prints its URL and the public key
 * path, answers over a socket, keeps its state in --data, and exits 0 on SIGTERM.
 * (CLOUDFN_CLI may point at another build of dist/src/cli/index.js.)
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { post, tempDir, until } from './helpers.js';

const cli = process.env['CLOUDFN_CLI'] ?? new URL('../../dist/src/cli/index.js', import.meta.url).pathname;
const built = existsSync(join(cli, '..', 'platform.js'));
const tmp = tempDir();
afterAll(() => tmp.remove());

// `npm test` builds first; a bare vitest run before any build says why these are skipped.
describe.skipIf(!built)(
  `the built CLI${built ? '' : ' (skipped: dist/src/cli/platform.js is missing; run npm run build)'}`,
  () => {
    test('cloudfn platform starts, prints where things are, serves tokens and stops on SIGTERM', async () => {
      const dataDir = join(tmp.dir, 'data');
      const child = spawn(
        process.execPath,
        [cli, 'platform', '--port', '0', '--data', dataDir, '--no-ffmpeg', '--client', 'tt-cli:secret'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /listening on (http:\/\/\S+)/.exec(stdout);
          if (match && stdout.includes('CLOUDFN_PLATFORM_SAMPLE_URL')) resolve(match[1]!);
        });
        void exited.then((code) => reject(new Error(`cloudfn platform exited ${String(code)}: ${stderr}`)));
      });
      try {
        const keyPath = join(dataDir, 'platform_public_key.pem');
        expect(stdout).toContain(`platform public key:  ${keyPath}`);
        expect(stdout).toContain(`CLOUDFN_MEDIA_BASE_URL=${url}`);
        expect(stdout).toContain('CLOUDFN_MEDIA_CLIENT_KEY=tt-cli');
        expect(stdout).toMatch(/ffmpeg: +absent: media is simulated/);
        expect(readFileSync(keyPath, 'utf8')).toContain('BEGIN PUBLIC KEY');
        const refused = await post(`${url}/oauth/client_token/`, {
          client_key: 'tt-cli',
          client_secret: 'wrong',
          grant_type: 'client_credential',
        });
        expect(refused.status).toBe(401);
        const token = await post(`${url}/oauth/client_token/`, {
          client_key: 'tt-cli',
          client_secret: 'secret',
          grant_type: 'client_credential',
        });
        expect(token.status).toBe(200);
        // One log line per request, on stderr; it may arrive just after the answer.
        await until(() => (/POST \/oauth\/client_token\/ 200 /.test(stderr) ? true : undefined), 5000);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
      expect(existsSync(join(dataDir, 'state.json'))).toBe(true);
      const state = JSON.parse(readFileSync(join(dataDir, 'state.json'), 'utf8')) as {
        tokens: Record<string, unknown>;
      };
      expect(Object.keys(state.tokens)).toHaveLength(1);
    });

    test('a bad flag is one line on stderr and exit 1', async () => {
      const child = spawn(
        process.execPath,
        [cli, 'platform', '--faults', 'explode=1', '--data', join(tmp.dir, 'bad')],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^cloudfn: option faults is invalid: unknown fault "explode"/),
      ]);
    });
  },
);
