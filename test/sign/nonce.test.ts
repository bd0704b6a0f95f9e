/** Making nonces: 32 hex characters from the CSPRNG, each drawn from a batch and never twice. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { generateNonce } from '../../src/sign/index.js';

describe('generateNonce', () => {
  it('gives 32 lower-case hex characters, all distinct across several batches of 256', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const nonce = generateNonce();
      expect(nonce).toMatch(/^[0-9a-f]{32}$/);
      seen.add(nonce);
    }
    expect(seen.size).toBe(1000);
  });

  it('does not hand out a startup snapshot’s batch again in the processes started from it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudfn-nonce-snapshot-'));
    try {
      const nonceModule = fileURLToPath(new URL('../../src/sign/nonce.ts', import.meta.url));
      const entry = join(dir, 'entry.mjs');
      writeFileSync(
        entry,
        `import { generateNonce } from ${JSON.stringify(nonceModule)};\n` +
          `import v8 from 'node:v8';\n` +
          'globalThis.before = generateNonce();\n' +
          'v8.startupSnapshot.setDeserializeMainFunction(() => console.log(before, generateNonce()));\n',
      );
      // --build-snapshot runs one CommonJS file.
      const bundle = join(dir, 'entry.cjs');
      await build({
        entryPoints: [entry],
        bundle: true,
        platform: 'node',
        format: 'cjs',
        outfile: bundle,
        logLevel: 'silent',
      });
      const blob = join(dir, 'snapshot.blob');
      execFileSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', bundle]);
      const run = () =>
        execFileSync(process.execPath, ['--snapshot-blob', blob], { encoding: 'utf8' }).trim().split(' ');
      const [before1, first] = run();
      const [before2, second] = run();
      // The nonce made while building is in the snapshot; the next one must come from new bytes.
      expect(before1).toBe(before2);
      expect(first).toMatch(/^[0-9a-f]{32}$/);
      expect(first).not.toBe(second);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
