/**
 * The console page is compiled for the browser on its own, so it cannot import the server's
 * modules (they need Node's types); both sides import the shapes they exchange from one protocol
 * module (src/dev/console/protocol.ts). These checks make sure the server's own names are that
 * protocol's types, not copies. A type test (vitest's typecheck): it fails when either side
 * declares its own.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { DevUser } from '../../runtime/shapes.js';
import type { RequestInfo } from '../../runtime/types.js';
import type {
  ConsoleMeta,
  RequestInfo as PageRequestInfo,
  TypeDiagnostic as PageTypeDiagnostic,
} from '../../src/dev/console/protocol.js';
import type { TypeDiagnostic } from '../../src/typecheck/format.js';

describe('the console page reads the shapes the dev server sends', () => {
  it('declares the request info observers receive as the runtime does', () => {
    expectTypeOf<PageRequestInfo>().toEqualTypeOf<RequestInfo>();
  });

  it('declares a type error as the type checker formats it', () => {
    expectTypeOf<PageTypeDiagnostic>().toEqualTypeOf<TypeDiagnostic>();
  });

  it('declares the dev user as the options module resolves it', () => {
    expectTypeOf<ConsoleMeta['devUser']>().toEqualTypeOf<DevUser>();
  });
});
