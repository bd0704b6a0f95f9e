/**
 * The public API, chosen on purpose: each entry of package.json `exports` and the names it
 * exports are pinned here, so adding or removing a public name is a visible decision.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const entries: Record<string, { load: () => Promise<Record<string, unknown>>; names: string[] }> = {
  cloudfn: {
    load: () => import('../src/index.js'),
    names: ['CloudfnError', 'HttpError', 'defineConfig', 'defineFunction', 'isUploadFile'],
  },
  'cloudfn/runtime': {
    load: () => import('../runtime/index.js'),
    names: [
      'App',
      'CONFIG_FILES',
      'CloudfnError',
      'DEFAULT_HEALTH_PATH',
      'HttpError',
      'LIMIT_KEYS',
      'Logger',
      'RUNTIME_FUNCTION',
      'createApp',
      'createError',
      'createHttpServer',
      'createJsonSink',
      'createMemorySink',
      'createStdoutSink',
      'defaultLimits',
      'exitOnSignals',
      'generateLogid',
      'healthHook',
      'keepServingOnStrayErrors',
      'listen',
      'loadConfigFile',
      'loadOpenTelemetry',
      'resolveOptions',
      'runtimeErrors',
      'serve',
      'shutdown',
      'startProject',
    ],
  },
  'cloudfn/sign': {
    load: () => import('../src/sign/index.js'),
    names: [
      'AUTH_TYPE',
      'DEFAULT_MAX_AGE_SECONDS',
      'DEFAULT_MAX_FUTURE_SKEW_SECONDS',
      'DEFAULT_RESPONSE_MAX_AGE_SECONDS',
      'KEY_BITS',
      'MemoryNonceStore',
      'SignatureError',
      'callbackMiddleware',
      'createHeaderProfile',
      'createPlatformKeyStore',
      'defaultHeaderProfile',
      'defaultNonceStore',
      'diagnoseRequest',
      'diagnoseResponse',
      'exportKey',
      'formatAuthorization',
      'generateKeyPair',
      'generateNonce',
      'inspectKey',
      'keyFingerprint',
      'loadPrivateKey',
      'loadPublicKey',
      'parseAuthorization',
      'readHeader',
      'responseStringToSign',
      'runDoctor',
      'showLineEnds',
      'signCallback',
      'signErrors',
      'signRequest',
      'signResponse',
      'signedPath',
      'stringToSign',
      'verifyCallback',
      'verifyRequest',
      'verifyResponse',
      'verifyServiceCallback',
    ],
  },
  'cloudfn/media': {
    load: () => import('../src/media/index.js'),
    names: [
      'API_PREFIX',
      'BusinessStatus',
      'JobState',
      'MAX_APP_ID_LIST',
      'MAX_EXPIRE_TIME',
      'MAX_JOB_IDS',
      'MAX_PAGE_SIZE',
      'MAX_URL_SETS',
      'MAX_VID_LIST',
      'MEDIA_ERR_MSG',
      'MIN_EXPIRE_TIME',
      'MediaApiError',
      'MediaErrNo',
      'MediaError',
      'MediaValidationError',
      'OPERATIONS',
      'RATE_LIMITED_OPERATIONS',
      'RunStatus',
      'STATS_WINDOW_SECONDS',
      'SourceType',
      'StaticOrderType',
      'TOKEN_ERROR_ERR_NOS',
      'TokenBucket',
      'TopOrderType',
      'TransCodeStatus',
      'TransCodeType',
      'createMediaClient',
      'createMediaError',
      'defaultClientTokenFetcher',
      'isOperation',
      'mediaErrors',
      'normalizeResponse',
      'resolveMediaOptions',
      'systemClock',
      'validateRequest',
    ],
  },
  'cloudfn/testing': {
    load: () => import('../src/testing/index.js'),
    names: [
      'ConnectRefusedError',
      'MAX_CLIENT_SOCKETS',
      'SocketLimitError',
      'createFakeService',
      'invoke',
      'invokeLiveData',
      'openGateway',
      'parseSetCookies',
      'readDatabase',
      'seedDatabase',
      'startComponents',
      'startLiveRooms',
      'startServices',
      'startStorage',
    ],
  },
  'cloudfn/client': {
    load: () => import('../src/client/index.js'),
    names: [
      'CLOUD_ERRNO',
      'CloudCallError',
      'ContainerCallError',
      'GATEWAY_CODES',
      'TRIGGER_HEADER',
      'callContainer',
      'clientErrors',
      'createCloud',
      'createContainerClient',
    ],
  },
  'cloudfn/platform': {
    load: () => import('../src/platform/index.js'),
    names: [
      'APP_KEYS_FILE',
      'DEFAULT_TRANS_CODE_TYPE',
      'DEV_CLIENT_KEY',
      'FAULTS_GRAMMAR',
      'LOGID_HEADER',
      'MEDIA_PREFIX',
      'PLATFORM_PRIVATE_KEY_FILE',
      'PLATFORM_PUBLIC_KEY_FILE',
      'PUBLIC_KEY_PATH',
      'PlatformError',
      'SAMPLE_PATH',
      'TEMPLATES',
      'TOKEN_PATH',
      'addAppKey',
      'createPlatform',
      'mediaClientEnv',
      'normalizeAppPublicKey',
      'parseFaults',
      'platformErrors',
      'resetDataDir',
      'resolvePlatformOptions',
    ],
  },
  'cloudfn/server-sdk': {
    load: () => import('../src/platform/sdk/public.js'),
    names: ['default', 'dySDK'],
  },
};

describe('public exports', () => {
  it.each(Object.keys(entries))('%s exports exactly its pinned names', async (entry) => {
    const { load, names } = entries[entry]!;
    expect(Object.keys(await load()).sort()).toEqual(names);
  });

  it('package.json lists every entry, types first, pointing at built files', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, unknown>;
      bin: Record<string, string>;
    };
    const listed = Object.keys(pkg.exports).filter((key) => key !== './package.json');
    expect(listed.map((key) => (key === '.' ? 'cloudfn' : `cloudfn/${key.slice(2)}`)).sort()).toEqual(
      Object.keys(entries).sort(),
    );
    for (const key of listed) {
      const target = pkg.exports[key] as Record<string, string>;
      expect(Object.keys(target)).toEqual(['types', 'default']);
      for (const file of Object.values(target))
        expect(existsSync(new URL(`../${file}`, import.meta.url)), file).toBe(true);
    }
    expect(existsSync(new URL(`../${pkg.bin['cloudfn']}`, import.meta.url))).toBe(true);
  });
});
