/**
 * `cloudfn/sign`: the signing scheme of docs/platform-contract.md#signing, both ways. Requests
 * are signed by the provider (`signRequest`) and checked by the platform (`verifyRequest`);
 * responses and callbacks are signed by the platform (`signResponse`, `signCallback`) and
 * checked by the provider (`verifyResponse`, `verifyCallback`, `verifyServiceCallback`,
 * `callbackMiddleware`), with the platform key of each mini-program from `createPlatformKeyStore`.
 */
export { loadPrivateKey, loadPublicKey, KEY_BITS, type KeyInput } from './keys.js';
export {
  keyFingerprint,
  inspectKey,
  exportKey,
  generateKeyPair,
  type KeyReport,
  type KeyEncoding,
  type GeneratedKeyPair,
} from './key-tools.js';
export {
  stringToSign,
  responseStringToSign,
  signedPath,
  showLineEnds,
  type RawBody,
  type RequestSigningParts,
} from './string-to-sign.js';
export { formatAuthorization, parseAuthorization, AUTH_TYPE, type AuthorizationParts } from './authorization.js';
export {
  signRequest,
  verifyRequest,
  type SignRequestOptions,
  type SignedRequest,
  type VerifyRequestOptions,
  type VerifiedRequest,
  type PublicKeys,
} from './request.js';
export {
  signResponse,
  signCallback,
  verifyResponse,
  type SignResponseOptions,
  type VerifyResponseOptions,
  type VerifiedResponse,
} from './response.js';
export {
  verifyCallback,
  verifyServiceCallback,
  type VerifyCallbackOptions,
  type VerifiedCallback,
  type CallbackService,
} from './callback.js';
export { callbackMiddleware, type CallbackMiddlewareOptions, type CallbackRequest } from './callback-middleware.js';
export {
  generateNonce,
  MemoryNonceStore,
  defaultNonceStore,
  type NonceStore,
  type MemoryNonceStoreOptions,
} from './nonce.js';
export {
  defaultHeaderProfile,
  createHeaderProfile,
  readHeader,
  type HeaderProfile,
  type HeadersInput,
} from './profile.js';
export {
  DEFAULT_MAX_AGE_SECONDS,
  DEFAULT_MAX_FUTURE_SKEW_SECONDS,
  DEFAULT_RESPONSE_MAX_AGE_SECONDS,
  type Clock,
} from './window.js';
export {
  createPlatformKeyStore,
  type PlatformKeyStore,
  type PlatformKeyStoreOptions,
  type PlatformKeySource,
  type PlatformKeyResolver,
  type PlatformKeyResult,
} from './platform-keys.js';
export { diagnoseRequest, diagnoseResponse, type RequestDiagnosis, type ResponseDiagnosis } from './diagnose.js';
export { runDoctor, type DoctorCheck, type DoctorOptions } from './doctor.js';
export { SignatureError, signErrors, type SignErrorCode } from './errors.js';
