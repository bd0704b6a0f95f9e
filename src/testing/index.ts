/**
 * `cloudfn/testing`: call functions in tests without a network. `invoke` runs a request through
 * the real pipeline in process; `invokeLiveData` pushes a live room's messages to one as the
 * platform does; `createFakeService` hands a handler a recording service;
 * `openGateway` connects simulated WebSocket clients and records what is pushed to them;
 * `startComponents` starts the app's Redis and MySQL as the platform injects them;
 * `startStorage` runs the local TOS (object storage) in process, as `cloudfn dev` does;
 * `startServices` serves other services of the app so that inner calls reach them;
 * `seedDatabase` and `readDatabase` give `dySDK.database()` a store private to the test.
 * Nothing here depends on a test runner: it works under vitest, node:test, or any other.
 * @example
 * import { invoke } from 'cloudfn/testing';
 * const res = await invoke('functions/hello.ts', { query: { name: 'Ada' } });
 */
export { invoke } from './invoke.js';
export type {
  AnyHandler,
  InvokeModule,
  InvokeOptions,
  InvokeResult,
  InvokeSpec,
  InvokeTarget,
  Jsonified,
  JsonOf,
  ParamsOf,
  RuntimeOverrides,
} from './invoke.js';
export type { BodyFor, InvokeRequest, QueryFor, QueryValue } from './request.js';
export { createFakeService } from './fake-service.js';
export type { FakeRequest, FakeService, FakeServiceOverrides, RecordedResponse } from './fake-service.js';
export { invokeLiveData } from './live-data.js';
export { startLiveRooms } from './live-rooms.js';
export type { TestLiveRooms, TestLiveRoomsOptions } from './live-rooms.js';
export type { LiveDataRequest, LiveDataResult } from './live-data.js';
export { parseSetCookies } from './cookies.js';
export { ConnectRefusedError, MAX_CLIENT_SOCKETS, openGateway, SocketLimitError } from './gateway.js';
export type {
  GatewayTestOptions,
  TestConnectOptions,
  TestRoom,
  ReceivedMessage,
  SimulatedClient,
  TestGateway,
  UplinkAnswer,
} from './gateway.js';
export type { ResponseCookie } from './cookies.js';
export { startComponents } from './components.js';
export type { TestComponentsOptions } from './components.js';
export type { Components, ComponentsSetting, RunningComponent } from '../platform/components/index.js';
export { startStorage } from './storage.js';
export type { TestStorage, TestStorageOptions } from './storage.js';
export { startServices } from './services.js';
export type { StartServicesOptions, TestServices } from './services.js';
export { readDatabase, seedDatabase } from './database.js';
export type { AppDatabaseData, DatabaseData, DatabaseOptions } from './database.js';
