/**
 * The console page imports the shapes the dev server sends from the protocol modules (the
 * console's core in src/dev/console/protocol.ts, each panel's beside its extension) that the
 * server imports too. A type test (vitest's typecheck):
 * it fails when a server module's type drifts from the protocol's (the services answer is
 * declared in services/service.ts and again in services/protocol.ts until service.ts imports it).
 */
import { expectTypeOf, it } from 'vitest';
import type { RequestInfo } from '../../runtime/types.js';
import type { LogRecord } from '../../runtime/log/record.js';
import type { FunctionStatus } from '../../src/dev/reloader.js';
import type {
  ConsoleLogRecord as PageLogRecord,
  FunctionStatus as FunctionInfo,
  RequestInfo as PageRequestInfo,
  TypecheckEvent as TypecheckInfo,
} from '../../src/dev/console/protocol.js';
import type { TypecheckEvent } from '../../src/dev/type-errors.js';
import type { DatabaseView } from '../../src/platform/sdk/browse.js';
import type { DatabaseView as PageDatabaseView } from '../../src/platform/sdk/protocol.js';

it('declares the same shapes the dev server sends', () => {
  expectTypeOf<PageRequestInfo>().toEqualTypeOf<RequestInfo>();
  // The hub adds its sequence number to every record it sends.
  expectTypeOf<PageLogRecord>().toExtend<LogRecord>();
  expectTypeOf<LogRecord & { seq: number }>().toExtend<PageLogRecord>();
  expectTypeOf<PageLogRecord['seq']>().toEqualTypeOf<number>();
  expectTypeOf<TypecheckInfo>().toEqualTypeOf<TypecheckEvent>();
  expectTypeOf<FunctionInfo>().toEqualTypeOf<FunctionStatus>();
  expectTypeOf<PageDatabaseView>().toEqualTypeOf<DatabaseView>();
});
