/**
 * The App's public surface: what embedding reads (the in-flight count, the closing flag) is
 * read-only, and only `beginShutdown` changes the flag.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../runtime/index.js';
import { Logger } from '../../runtime/log/logger.js';
import { createMemorySink } from '../../runtime/log/sinks.js';

function app() {
  return createApp({ functions: [{ name: 'hello', handler: () => 'hi' }], logger: new Logger(createMemorySink()) });
}

describe('App', () => {
  it('exposes the in-flight count and the closing flag read-only', () => {
    const a = app();
    expect(a.inflight).toBe(0);
    expect(a.closing).toBe(false);
    expect(() => {
      (a as unknown as { inflight: number }).inflight = 5;
    }).toThrow(TypeError);
    expect(() => {
      (a as unknown as { closing: boolean }).closing = true;
    }).toThrow(TypeError);
    expect(a.inflight).toBe(0);
    expect(a.closing).toBe(false);
  });

  it('starts refusing requests only through beginShutdown', () => {
    const a = app();
    a.beginShutdown();
    expect(a.closing).toBe(true);
  });

  it('keeps its own body parser and request-line cache: two apps share no hot-path state', () => {
    const one = app();
    const two = app();
    expect(one.parser).not.toBe(two.parser);
    expect(one.logger).not.toBe(two.logger);
  });
});
