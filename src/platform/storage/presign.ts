/**
 * Presigned GET URLs minted by cloudfn itself (the console's "copy URL", `getTempFileURL` of
 * `createCloud`), as the SDK's `getPreSignedUrl` mints them: the query `X-Tos-Algorithm`,
 * `X-Tos-Credential`, `X-Tos-Date`, `X-Tos-Expires`, `X-Tos-SignedHeaders=host` and
 * `X-Tos-Signature` over the canonical request of signature.ts, for the virtual-hosted platform
 * host (`<bucket>.tos-cn-beijing.volces.com`). The local TOS checks it as any presigned URL; its
 * local twin (`localPresignedUrl`) is the dev route that takes the platform's host.
 */
import { CLOUDFN_PREFIX } from '../../../runtime/options.js';
import { ALGORITHM, canonicalPath, signCanonical, type TosKeys, tosEncode } from './signature.js';

/** The route under `<CLOUDFN_PREFIX>/` that takes a platform host as its first segment (service.ts). */
export const TOS_ROUTE = 'tos';

/**
 * The local twin of a presigned URL minted under dev: the dev route at `devUrl` with the
 * platform's host kept in the path, so its signature still holds.
 * @example localPresignedUrl('https://b.tos-cn-beijing.volces.com/a.png?X-Tos-Signature=…', 'http://localhost:8000')
 * // 'http://localhost:8000<CLOUDFN_PREFIX>/tos/b.tos-cn-beijing.volces.com/a.png?X-Tos-Signature=…'
 */
export function localPresignedUrl(url: string, devUrl: string): string {
  return `${devUrl.replace(/\/+$/, '')}${CLOUDFN_PREFIX}/${TOS_ROUTE}/${url.replace(/^https?:\/\//, '')}`;
}

/** What a presigned URL is minted from. */
export interface PresignRequest {
  keys: TosKeys;
  region: string;
  /** The region's endpoint, e.g. `tos-cn-beijing.volces.com`. */
  endpoint: string;
  bucket: string;
  key: string;
  /** Seconds it lives. */
  expires: number;
  /** @default Date.now() */
  now?: number;
}

/** `yyyymmddThhmmssZ`. */
function datetimeOf(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/**
 * The platform's presigned GET URL of an object: `https://<bucket>.<endpoint>/<key>?X-Tos-…`.
 * @example presignPlatformGet({ keys, region: 'cn-beijing', endpoint: 'tos-cn-beijing.volces.com', bucket: 'b', key: 'a.png', expires: 3600 })
 */
export function presignPlatformGet(request: PresignRequest): URL {
  const host = `${request.bucket}.${request.endpoint}`;
  const datetime = datetimeOf(request.now ?? Date.now());
  // The URL carries the key as the SDK writes it; the signature covers its canonical form.
  const path = `/${request.key.split('/').map(encodeURIComponent).join('/')}`;
  const pairs: [string, string][] = [
    ['X-Tos-Algorithm', ALGORITHM],
    ['X-Tos-Content-Sha256', 'UNSIGNED-PAYLOAD'],
    ['X-Tos-Credential', `${request.keys.accessKey}/${datetime.slice(0, 8)}/${request.region}/tos/request`],
    ['X-Tos-Date', datetime],
    ['X-Tos-Expires', String(request.expires)],
    ['X-Tos-SignedHeaders', 'host'],
  ];
  const query = [...pairs]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${tosEncode(name)}=${tosEncode(value)}`)
    .join('&');
  const canonical = ['GET', canonicalPath(path), query, `host:${host}\n`, 'host', 'UNSIGNED-PAYLOAD'].join('\n');
  const { signature } = signCanonical(request.keys.secretKey, datetime, request.region, canonical);
  return new URL(`https://${host}${path}?${query}&X-Tos-Signature=${signature}`);
}
