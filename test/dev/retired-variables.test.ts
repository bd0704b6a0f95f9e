/**
 * The push and live-room URL variables of earlier versions are gone without a shim (issue 51):
 * a project whose `.env` still sets them gets one warning per variable naming the plain host a
 * function calls instead, and the variable reaches no function's URL.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { startDevServer } from '../../src/dev/index.js';

const root = mkdtempSync(join(tmpdir(), 'cloudfn-retired-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a .env that sets the removed variables', () => {
  it('is told, once per variable, to call the plain host', async () => {
    mkdirSync(join(root, 'functions'));
    writeFileSync(join(root, 'functions', 'hello.ts'), 'export default () => ({ ok: true });\n');
    writeFileSync(
      join(root, '.env'),
      'CLOUDFN_WS_PUSH_URL=http://127.0.0.1:9/push\nCLOUDFN_LIVE_URL=http://127.0.0.1:9/live\n',
    );
    const sink = createMemorySink();
    const dev = await startDevServer({ root, port: 0, sink, typecheck: false });
    try {
      const told = sink.records.flatMap((record) => (record.msg?.includes('is no longer read') ? [record.msg] : []));
      expect(told).toEqual([
        'CLOUDFN_WS_PUSH_URL=http://127.0.0.1:9/push is no longer read: call the plain host ws-push.dyc.ivolces.com itself, as on the platform; cloudfn dev answers it',
        'CLOUDFN_LIVE_URL=http://127.0.0.1:9/live is no longer read: call the plain host webcast.bytedance.com itself, as on the platform; cloudfn dev answers it',
      ]);
      expect(sink.records.filter((record) => record.level === 'warn' && told.includes(record.msg ?? ''))).toHaveLength(
        2,
      );
    } finally {
      await dev.close();
    }
  });
});
