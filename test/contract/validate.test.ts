/**
 * Declared params through the real pipeline (`invoke`): a table of schemas × bodies for every
 * Standard Schema library the runtime is tested against, and the answers of a schema that is
 * async, throws, or a result that fails. The 400 body is the one error format plus `issues`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../runtime/serve/config-file.js';
import { isUploadFile } from '../../runtime/body/upload-file.js';
import { jsonPointer } from '../../runtime/contract/pointer.js';
import type { Handler } from '../../runtime/types.js';
import { invoke } from '../../src/testing/index.js';
import { z } from 'zod';
import { libraries } from './schemas.js';

/** Answers the params the handler received. */
const echo: Handler = (params) => ({ got: params });

interface ErrorJson {
  error: { code: string; message: string; logid: string; issues?: { path: string; message: string }[] };
}

describe.each(libraries)('$name', (lib) => {
  it('passes valid params, with defaults applied and unknown keys dropped, to the handler', async () => {
    const res = await invoke<{ got: unknown }>(
      { handler: echo, config: { params: lib.order } },
      { body: { name: 'pen', qty: 2, extra: 'x' } },
    );
    expect(res.status).toBe(200);
    expect(res.json?.got).toEqual({ name: 'pen', qty: 2, tags: [] });
  });

  it('refuses a missing field with 400, its pointer, and the logid', async () => {
    const res = await invoke<ErrorJson>({ handler: echo, config: { params: lib.order } }, { body: { qty: 2 } });
    expect(res.status).toBe(400);
    const error = res.json!.error;
    expect(error.code).toBe('CLOUDFN_BAD_PARAMS');
    expect(error.logid).toBe(res.logid);
    expect(error.issues?.map((issue) => issue.path)).toEqual(['/name']);
    expect(error.message).toMatch(/^the params at \/name do not fit the function's config\.params: .+; send a value/);
  });

  it('gives one issue per problem, nested array items by index', async () => {
    const res = await invoke<ErrorJson>(
      { handler: echo, config: { params: lib.order } },
      {
        body: {
          name: '',
          qty: 1.5,
          items: [
            { sku: 'a', qty: 1 },
            { sku: 'b', qty: 'two' },
          ],
        },
      },
    );
    expect(res.status).toBe(400);
    const paths = res.json!.error.issues!.map((issue) => issue.path).sort();
    expect(paths).toEqual(['/items/1/qty', '/name', '/qty']);
    expect(res.json!.error.message).toMatch(/\(2 more issues in issues\)$/);
  });

  it('refuses params that are not an object at the root pointer ""', async () => {
    const res = await invoke<ErrorJson>({ handler: echo, config: { params: lib.order } }, { body: 'just text' });
    expect(res.status).toBe(400);
    expect(res.json!.error.issues![0]!.path).toBe('');
    expect(res.json!.error.message).toMatch(/^the params do not fit/);
  });

  it('coerces a GET query string with the schema', async () => {
    const ok = await invoke<{ got: unknown }>(
      { handler: echo, config: { params: lib.coerced } },
      { query: { n: '42' } },
    );
    expect(ok.json?.got).toEqual({ n: 42 });
    const bad = await invoke<ErrorJson>({ handler: echo, config: { params: lib.coerced } }, { query: { n: 'many' } });
    expect(bad.status).toBe(400);
    expect(bad.json!.error.issues![0]!.path).toBe('/n');
  });

  it('refuses unknown keys with a strict schema', async () => {
    const res = await invoke<ErrorJson>(
      { handler: echo, config: { params: lib.strict } },
      { body: { known: 'a', sneaky: true } },
    );
    expect(res.status).toBe(400);
    expect(res.json!.error.code).toBe('CLOUDFN_BAD_PARAMS');
  });

  it('escapes ~ and / in the pointer (RFC 6901)', async () => {
    const res = await invoke<ErrorJson>({ handler: echo, config: { params: lib.odd } }, { body: { 'a/b~c': 'x' } });
    expect(res.json!.error.issues![0]!.path).toBe('/a~1b~0c');
  });

  it.runIf(lib.async !== undefined)('waits for an async schema', async () => {
    const ok = await invoke<{ got: unknown }>(
      { handler: echo, config: { params: lib.async! } },
      { body: { code: 'free' } },
    );
    expect(ok.json?.got).toEqual({ code: 'free' });
    const bad = await invoke<ErrorJson>({ handler: echo, config: { params: lib.async! } }, { body: { code: 'taken' } });
    expect(bad.status).toBe(400);
    expect(bad.json!.error.issues).toEqual([{ path: '/code', message: 'that code is taken' }]);
  });

  it('answers 500 CLOUDFN_SCHEMA_FAILED for a schema that throws, the detail in the log only', async () => {
    const res = await invoke<ErrorJson>(
      { name: 'orders', handler: echo, config: { params: lib.throwing } },
      { body: { x: 'y' } },
    );
    expect(res.status).toBe(500);
    expect(res.json!.error.code).toBe('CLOUDFN_SCHEMA_FAILED');
    expect(res.text).not.toContain('lookup table');
    expect(res.text).not.toContain('at ');
    const line = res.logs.find((record) => String(record['msg']).includes('lookup table not loaded'));
    expect(String(line?.['msg'])).toContain('the params schema of orders');
  });
});

describe('the refusal and the result', () => {
  it('logs a refusal once, its request line carrying every issue', async () => {
    const res = await invoke({ handler: echo, config: { params: libraries[0]!.order } }, { body: { qty: 'x' } });
    const lines = res.logs.filter((record) => String(JSON.stringify(record)).includes('CLOUDFN_BAD_PARAMS'));
    expect(lines).toHaveLength(1);
    expect(String(lines[0]!['error'])).toMatch(/\[issues: \/name: .+; \/qty: .+\]/);
  });

  it('never calls the handler with invalid params', async () => {
    let called = false;
    await invoke(
      {
        handler: () => {
          called = true;
        },
        config: { params: libraries[2]!.order },
      },
      { body: {} },
    );
    expect(called).toBe(false);
  });

  it('validates an UploadFile by size and type (multipart)', async () => {
    const params = z.object({
      file: z
        .custom((value) => isUploadFile(value), 'send a file')
        .refine((file) => ['image/png', 'image/jpeg'].includes((file as { type: string }).type), 'send a PNG or JPEG')
        .refine((file) => (file as { size: number }).size <= 8, 'the file must be 8 bytes or less'),
    });
    const form = (type: string, text: string) => {
      const body = new FormData();
      body.append('file', new Blob([text], { type }), 'a.png');
      return body;
    };
    const ok = await invoke({ handler: () => 'ok', config: { params } }, { body: form('image/png', 'tiny') });
    expect(ok.status).toBe(200);
    const big = await invoke<ErrorJson>(
      { handler: () => 'ok', config: { params } },
      { body: form('image/png', 'far too large') },
    );
    expect(big.json!.error.issues).toEqual([{ path: '/file', message: 'the file must be 8 bytes or less' }]);
    const text = await invoke<ErrorJson>(
      { handler: () => 'ok', config: { params } },
      { body: form('text/plain', 'x') },
    );
    expect(text.json!.error.issues![0]!.message).toBe('send a PNG or JPEG');
  });

  const result = z.object({ total: z.number() });
  it('answers 500 CLOUDFN_BAD_RESULT with the issues when errors are exposed (cloudfn dev)', async () => {
    const res = await invoke<ErrorJson>(
      { handler: () => ({ total: 'lots' }), config: { result } },
      {},
      { runtime: { exposeErrors: true } },
    );
    expect(res.status).toBe(500);
    expect(res.json!.error.code).toBe('CLOUDFN_BAD_RESULT');
    expect(res.json!.error.issues![0]!.path).toBe('/total');
  });

  it('sends a failing result as returned and logs the issues in production', async () => {
    const res = await invoke({ handler: async () => ({ total: 'lots' }), config: { result } }, {});
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ total: 'lots' });
    expect(res.logs.some((record) => JSON.stringify(record).includes('CLOUDFN_BAD_RESULT'))).toBe(true);
  });

  it('sends the output of a result that fits (unknown keys dropped)', async () => {
    const res = await invoke({ handler: () => ({ total: 3, secret: 'x' }), config: { result } }, {});
    expect(res.json).toEqual({ total: 3 });
  });

  it('refuses a config.params that is not a Standard Schema', async () => {
    const mod = { default: echo, config: { params: { name: 'string' } } };
    await expect(invoke(mod as never, {})).rejects.toThrow(/config\.params must be a Standard Schema v1 validator/);
  });

  it('writes JSON Pointers for symbol and segment keys', () => {
    expect(jsonPointer([{ key: 'a' }, 0, Symbol('s')])).toBe('/a/0/s');
    expect(jsonPointer(undefined)).toBe('');
  });
});

describe('schemas belong to the function module', () => {
  it('refuses params declared in cloudfn.config functions, which a bundle bakes in as JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudfn-contract-config-'));
    try {
      writeFileSync(
        join(dir, 'cloudfn.config.mjs'),
        "export default { functions: { hello: { params: { '~standard': { version: 1, vendor: 'x', validate: (value) => ({ value }) } } } } };",
      );
      await expect(loadConfigFile(dir)).rejects.toThrow(
        /functions\.hello\.params cannot be declared here; declare it in the function's own module/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
