/**
 * The console page is compiled for the browser on its own, so it declares the shapes the dev
 * server sends it instead of importing them from the server's modules (which need node's
 * types). These checks make the two declarations one: `npm run typecheck` fails when either
 * side changes alone.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { DevUser } from '../../runtime/options.js';
import type { RequestInfo } from '../../runtime/types.js';
import type {
  DevUserInfo as PageDevUser,
  RequestInfo as PageRequestInfo,
  TypeDiagnostic as PageTypeDiagnostic,
} from '../../src/dev/console/page/api.js';
import type { TypeDiagnostic } from '../../src/typecheck/format.js';

describe('the console page mirrors the dev server', () => {
  it('declares the request info observers receive as the runtime does', () => {
    expectTypeOf<PageRequestInfo>().toEqualTypeOf<RequestInfo>();
  });

  it('declares a type error as the type checker formats it', () => {
    expectTypeOf<PageTypeDiagnostic>().toEqualTypeOf<TypeDiagnostic>();
  });

  it('declares the dev user as the options module resolves it', () => {
    expectTypeOf<PageDevUser>().toEqualTypeOf<DevUser>();
  });
});
