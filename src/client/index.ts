/**
 * `cloudfn/client`: the client container call (platform contract, Runtime interface) for Node,
 * pointed at a base URL, so the client side of a mini-program (what a page sends, how it
 * handles each answer) can be tested against `cloudfn dev`, `cloudfn start` or a built bundle.
 * @example
 * import { createContainerClient } from 'cloudfn/client';
 * const { callContainer } = createContainerClient({ baseUrl: 'http://127.0.0.1:8000' });
 * const { statusCode, data } = await callContainer({ path: '/hello', init: { method: 'POST', body: { name: 'Ada' } } });
 * @example
 * import { createCloud } from 'cloudfn/client';
 * const rank = createCloud({ envID: 'env-1', serviceID: 'rank', baseUrl: 'http://127.0.0.1:8000' });
 * const { data } = await rank.callContainer({ path: '/top' });
 */
export { callContainer, createContainerClient, TRIGGER_HEADER } from './call-container.js';
export type {
  ContainerCallInit,
  ContainerCallOptions,
  ContainerClient,
  ContainerClientOptions,
  ContainerResponse,
} from './call-container.js';
export { ContainerCallError, clientErrors } from './errors.js';
export { createCloud } from './create-cloud.js';
export type { Cloud, CloudCallOptions, CreateCloudOptions } from './create-cloud.js';
export { CLOUD_ERRNO, CloudCallError } from './cloud-failure.js';
export type { CloudFailure } from './cloud-failure.js';
export type {
  CloudStorage,
  DeleteFileOptions,
  DeleteFileResult,
  DownloadFileOptions,
  DownloadFileResult,
  GetTempFileURLOptions,
  GetTempFileURLResult,
  StorageCall,
  UploadFileOptions,
  UploadFileResult,
} from './cloud-storage.js';
export type { FileListItem } from './storage-wire.js';
export { GATEWAY_CODES } from './gateway-wire.js';
export type { ClientErrorCode, ContainerFailure } from './errors.js';
