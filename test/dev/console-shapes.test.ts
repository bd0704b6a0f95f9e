/**
 * The console page is compiled for the browser without Node's types, so it declares the shapes
 * the dev server sends instead of importing them. These checks run at type-check time (and
 * in vitest) and fail when a copy drifts from the server's type.
 */
import { expectTypeOf, it } from 'vitest';
import type { RequestInfo } from '../../runtime/types.js';
import type { LogRecord } from '../../runtime/log/record.js';
import type { FunctionStatus } from '../../src/dev/reloader.js';
import type {
  FunctionInfo,
  LogRecord as PageLogRecord,
  RequestInfo as PageRequestInfo,
  TypecheckInfo,
} from '../../src/dev/console/page/api.js';
import type { TypecheckEvent } from '../../src/dev/type-errors.js';
import type { DatabaseView as PageDatabaseView } from '../../src/dev/console/page/database-panel.js';
import type { DatabaseView } from '../../src/platform/sdk/browse.js';

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
