/**
 * `createCloud({ envID, serviceID })`: the platform's `tt.createCloud` for Node, so the code of a
 * mini-program that picks a service and calls it can run against `cloudfn dev`. Its
 * `callContainer({ path, init, success, fail, complete })` answers `{ statusCode, header, data }`
 * (or a promise of it), sent through createContainerClient with the service named in
 * `x-cloudfn-service`: under `cloudfn dev`, any service's URL reaches every service of the
 * session, as the platform's gateway does. Elsewhere (`cloudfn start`, bundles) each service has
 * its own base URL (`baseUrls`). A failure arrives as the platform's (cloud-failure.ts): the
 * gateway's envelope (13005, 14021, 14010, 14030) as 21102, no answer as 21100. The storage
 * methods (`uploadFile`, `downloadFile`, `deleteFile`, `getTempFileURL`) are cloud-storage.ts.
 */
import type { CallerInit, Trigger } from '../../runtime/types.js';
import {
  type CallingRequest,
  type ContainerCallInit,
  type ContainerResponse,
  createContainerClient,
  runCallbacks,
} from './call-container.js';
import { CLOUD_ERRNO, CloudCallError, type CloudFailure, cloudError } from './cloud-failure.js';
import { type CloudStorage, cloudStorage } from './cloud-storage.js';
import { ContainerCallError } from './errors.js';
import { ENV_HEADER, gatewayFailure, SERVICE_HEADER } from './gateway-wire.js';

/** What `createCloud` takes: the platform's two ids, and where the services are. */
export interface CreateCloudOptions {
  /** The environment's id, as the platform shows it; sent as `x-cloudfn-env`. */
  envID: string;
  /** The service every call goes to; sent as `x-cloudfn-service`. */
  serviceID: string;
  /**
   * Where the gateway is: the URL of any service of a `cloudfn dev` session.
   * @default process.env.CLOUDFN_BASE_URL, read at each call
   */
  baseUrl?: string;
  /** A base URL per service id (servers with no gateway in front: `cloudfn start`, bundles); wins over `baseUrl`. */
  baseUrls?: Readonly<Record<string, string>>;
  /** Headers sent with every call (a call's `init.header` wins). */
  header?: Record<string, string>;
  /** @default 60000 */
  timeout?: number;
  /** @default 'online' */
  trigger?: Trigger | false;
  /** @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  /** The user every call is made as (`X-TT-*` headers). @default none */
  user?: CallerInit;
}

/** One call: the platform's options, and cloudfn's `from` and `user` (see ContainerCallOptions). */
export interface CloudCallOptions<T = unknown> {
  path: string;
  init?: ContainerCallInit;
  from?: CallingRequest;
  user?: CallerInit | null;
  /** Called with the response, whatever its status (a 500 is the service's answer, not a failure). */
  success?: (response: ContainerResponse<T>) => void;
  /** Called with `{ errMsg, errNo, code, logid }` when the gateway refused the call or no answer came. */
  fail?: (failure: CloudFailure) => void;
  complete?: (result: ContainerResponse<T> | CloudFailure) => void;
}

/** The cloud object of one service: `callContainer`, and the storage methods (cloud-storage.ts). */
export interface Cloud extends CloudStorage {
  readonly envID: string;
  readonly serviceID: string;
  callContainer<T = unknown>(
    options: CloudCallOptions<T> & { success: NonNullable<CloudCallOptions<T>['success']> },
  ): void;
  callContainer<T = unknown>(options: CloudCallOptions<T> & { fail: NonNullable<CloudCallOptions<T>['fail']> }): void;
  callContainer<T = unknown>(
    options: CloudCallOptions<T> & { complete: NonNullable<CloudCallOptions<T>['complete']> },
  ): void;
  callContainer<T = unknown>(options: CloudCallOptions<T>): Promise<ContainerResponse<T>>;
}

function checkId(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '')
    throw new TypeError(
      `createCloud needs ${name} as a non-empty string, as tt.createCloud({ envID, serviceID }) takes it, got ${JSON.stringify(value)}`,
    );
  return value;
}

/** The message of a ContainerCallError without its `callContainer:fail ` prefix. */
function reason(error: ContainerCallError): string {
  return error.errMsg.replace(/^callContainer:fail /, '');
}

async function send(options: CreateCloudOptions, call: CloudCallOptions): Promise<ContainerResponse> {
  const baseUrl = options.baseUrls?.[options.serviceID] ?? options.baseUrl ?? process.env['CLOUDFN_BASE_URL'];
  if (baseUrl === undefined || baseUrl === '')
    throw cloudError(
      CLOUD_ERRNO.invalidParam,
      CLOUD_ERRNO.invalidParam,
      `invalid param (no base URL for service ${options.serviceID}: set CLOUDFN_BASE_URL to a cloudfn dev URL, or pass baseUrl or baseUrls)`,
      '',
    );
  let response: ContainerResponse;
  try {
    const client = createContainerClient({
      baseUrl,
      header: { [SERVICE_HEADER]: options.serviceID, [ENV_HEADER]: options.envID, ...options.header },
      ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
      ...(options.trigger === undefined ? {} : { trigger: options.trigger }),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.user === undefined ? {} : { user: options.user }),
    });
    response = await client.callContainer({
      path: call?.path,
      ...(call?.init === undefined ? {} : { init: call.init }),
      ...(call?.from === undefined ? {} : { from: call.from }),
      ...(call?.user === undefined ? {} : { user: call.user }),
    });
  } catch (error) {
    if (error instanceof ContainerCallError) {
      const errNo = error.code === 'CLIENT_BAD_OPTIONS' ? CLOUD_ERRNO.invalidParam : CLOUD_ERRNO.networkError;
      const what = errNo === CLOUD_ERRNO.invalidParam ? 'invalid param' : 'network error';
      throw cloudError(errNo, errNo, `${what} (${reason(error)})`, '', error);
    }
    const message = (error as Error).message ?? String(error);
    throw cloudError(CLOUD_ERRNO.invalidParam, CLOUD_ERRNO.invalidParam, `invalid param (${message})`, '', error);
  }
  const envelope = gatewayFailure(response.statusCode, response.header, response.data);
  if (envelope !== undefined)
    throw cloudError(CLOUD_ERRNO.gatewayError, envelope.status_code, envelope.status_message, envelope.logid);
  return response;
}

/**
 * The cloud object of one service, as `tt.createCloud` returns it.
 * @example
 * const cloud = createCloud({ envID: 'env-1', serviceID: 'rank', baseUrl: session.url });
 * const { statusCode, data } = await cloud.callContainer({ path: '/top', init: { method: 'POST', body: { limit: 5 } } });
 * @example
 * cloud.callContainer({ path: '/top', success: (res) => show(res.data), fail: (err) => toast(err.errMsg) });
 * @example
 * const { fileID } = await cloud.uploadFile({ cloudPath: 'avatars/a.png', filePath: './a.png' });
 * const { fileList } = await cloud.getTempFileURL({ fileList: [fileID] }); // fileList[0].tempFileURL
 */
export function createCloud(options: CreateCloudOptions): Cloud {
  const envID = checkId('envID', options?.envID);
  const serviceID = checkId('serviceID', options?.serviceID);
  const settled = { ...options, envID, serviceID };
  function callContainer(call: CloudCallOptions): Promise<ContainerResponse> | undefined {
    const promise = send(settled, call);
    if (call?.success === undefined && call?.fail === undefined && call?.complete === undefined) return promise;
    promise.then(
      (response) => runCallbacks(call.success, call.complete, response),
      (error: unknown) =>
        runCallbacks(
          call.fail,
          call.complete,
          error instanceof CloudCallError
            ? error.toFailure()
            : cloudError(CLOUD_ERRNO.networkError, CLOUD_ERRNO.networkError, 'network error', '').toFailure(),
        ),
    );
    return undefined;
  }
  const storage = cloudStorage(() => ({
    envID,
    serviceID,
    baseUrl: options.baseUrls?.[serviceID] ?? options.baseUrl,
    header: options.header,
    timeout: options.timeout,
    fetch: options.fetch,
    user: options.user,
  }));
  return { envID, serviceID, callContainer, ...storage } as Cloud;
}
