/**
 * The catch-all route of single-function bundles is matched without path-to-regexp; it must
 * give what path-to-regexp gives for the same pattern, on any path the pipeline lets through.
 */
import fc from 'fast-check';
import { match } from 'path-to-regexp';
import { describe, expect, it } from 'vitest';
import { EVERY_PATH, Router } from '../../../runtime/request/router.js';
import type { LoadedFunction } from '../../../runtime/types.js';

const router = new Router([{ name: 'only' } as LoadedFunction], { [EVERY_PATH]: 'only' });
const reference = match(EVERY_PATH);

/** Path segments as clients send them: plain characters, escapes of any character, empty ones. */
const segment = fc.array(
  fc.oneof(
    fc.constantFrom('a', 'Z', '0', '-', '.', '_', '~', '!', '$', '(', ':', '@', '+', ','),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }).map((c) => encodeURIComponent(c)),
  ),
  { maxLength: 6 },
);

describe('the catch-all route of a single-function bundle', () => {
  it.each(['/', '/a', '/a/b', '/a/b/', '//a', '/a//b', '/%61%2Fb', '/a%20b', '/.', '/a/./b'])(
    'matches %s as path-to-regexp does',
    (raw) => {
      expect(router.match(raw, raw)?.params).toEqual((reference(raw) as { params: object }).params);
    },
  );

  it('matches any path as path-to-regexp does (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          segment.map((parts) => parts.join('')),
          { minLength: 1, maxLength: 5 },
        ),
        (segments) => {
          const raw = `/${segments.join('/')}`;
          const expected = reference(raw);
          expect(expected).not.toBe(false);
          expect(router.match(raw, raw)?.params).toEqual((expected as { params: object }).params);
        },
      ),
      { numRuns: 500 },
    );
  });
});
