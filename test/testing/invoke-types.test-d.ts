/**
 * invoke's types: it infers params and the JSON result from a typed Handler (or a module), keeps
 * an explicit result type, and isUploadFile narrows a field to an UploadFile. A type test
 * (vitest's typecheck): tsc checks it, and an assertion that does not hold, or a
 * `@ts-expect-error` line that compiles, fails its case.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { type Handler, isUploadFile, type UploadFile } from '../../src/index.js';
import { invoke, type InvokeResult } from '../../src/testing/index.js';
import * as limited from './modules/limited-upload.js';

describe('invoke types', () => {
  const hello: Handler<{ name?: string }, { hello: string; at: Date }> = (params) => ({
    hello: params.name ?? 'world',
    at: new Date(0),
  });

  it('infers the JSON result from a typed Handler, and its params for the request', async () => {
    const res = await invoke(hello, { query: { name: 'Ada' } });
    expectTypeOf(res).toEqualTypeOf<InvokeResult<{ hello: string; at: string }>>();
    const viaModule = await invoke(limited, { body: new FormData() });
    expectTypeOf(viaModule.json).toEqualTypeOf<{ name: string; size: number } | undefined>();
    // @ts-expect-error: the handler takes `name`, not `nmae`
    await invoke(hello, { query: { nmae: 'Ada' } });
    // @ts-expect-error: a JSON body must match the params too
    await invoke(hello, { body: { name: 42 } });
  });

  it('keeps an explicit result type, and unknown for a path', async () => {
    expectTypeOf(await invoke<{ n: number }>(hello)).toEqualTypeOf<InvokeResult<{ n: number }>>();
    expectTypeOf<Awaited<ReturnType<typeof invoke<never, Handler>>>['json']>().toEqualTypeOf<unknown>();
  });
});

describe('isUploadFile', () => {
  it('narrows a field to an UploadFile', () => {
    const field = { name: 'a', type: 't', size: 0, buffer: Buffer.alloc(0) } as string | string[] | UploadFile;
    if (isUploadFile(field)) expectTypeOf(field).toEqualTypeOf<UploadFile>();
    if (isUploadFile(field)) expectTypeOf(field.buffer).toEqualTypeOf<Buffer>();
  });
});
