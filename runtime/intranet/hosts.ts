/**
 * The platform's intranet hostnames that functions call with plain HTTP, and what each is:
 * another service of the app (`{from}-{to}.inner-call.dyc.ivolces.com`, or the older
 * `{from}-{to}.dycloud.service`), the gateway's push API (`ws-push.dyc.ivolces.com`,
 * `ws-push.dycloud-api.service`), the live-room OpenAPI without an access token
 * (`webcast-bytedance-com.openapi.dyc.ivolces.com`), and object storage (TOS: the region's
 * endpoint `tos-cn-beijing.volces.com`, its intranet twin `tos-cn-beijing.ivolces.com`, and
 * either with `<bucket>.` in front).
 */
/** The hosts a function calls for the push API on the platform (the gateway's push API). */
export const PUSH_HOSTS: readonly string[] = ['ws-push.dyc.ivolces.com', 'ws-push.dycloud-api.service'];

/** The live-room OpenAPI's intranet host, answered without an access token. */
export const WEBCAST_INTRANET_HOST = 'webcast-bytedance-com.openapi.dyc.ivolces.com';

/** The live-room OpenAPI's public host, which the SDK stand-in also answers locally. */
export const WEBCAST_PUBLIC_HOST = 'webcast.bytedance.com';

/**
 * The header that addresses a call to the platform's client gateway (`tt.createCloud`'s
 * `serviceID`): the gateway stands in front of every service, so a stand-in of it answers by
 * this header, whatever the `Host` (src/client/gateway-wire.ts sends it).
 */
export const CLIENT_GATEWAY_HEADER = 'x-cloudfn-service';

/** The suffixes of a service-to-service host, newest first. */
export const INNER_CALL_SUFFIXES: readonly string[] = ['.inner-call.dyc.ivolces.com', '.dycloud.service'];

/**
 * A TOS endpoint: `tos-<region>.volces.com` (public) or `tos-<region>.ivolces.com` (intranet),
 * with an optional `<bucket>.` in front (TOS's virtual-hosted style). The S3-compatible
 * endpoints (`tos-s3-…`) are not TOS's own API and are left alone.
 */
const TOS_HOST = /^(?:([a-z0-9][a-z0-9-]{1,61}[a-z0-9])\.)?tos-((?!s3-)[a-z0-9-]+)\.i?volces\.com$/;

/** What an intranet host names. */
export type IntranetHost =
  /** `pair` is `{from}-{to}` as written; the services layer splits it against the known ids. */
  | { readonly kind: 'inner-call'; readonly pair: string }
  | { readonly kind: 'ws-push' }
  | { readonly kind: 'webcast' }
  /** `bucket` when the host names one (`media.tos-cn-beijing.volces.com`). */
  | { readonly kind: 'tos'; readonly region: string; readonly bucket?: string };

/**
 * A cheap first test, made for every outgoing connection while the hook is on: whether the
 * host can be an intranet one at all (every one ends with one of these).
 */
export function maybeIntranet(hostname: string): boolean {
  return hostname.endsWith('volces.com') || hostname.endsWith('.service') || hostname === WEBCAST_PUBLIC_HOST;
}

/**
 * Whether a request's `Host` header names a service-to-service host (an inner call reached
 * this server).
 * @example isInnerCallHost('game-profile.inner-call.dyc.ivolces.com:80') // true
 */
export function isInnerCallHost(host: string | undefined): boolean {
  return host !== undefined && classifyHost(host.replace(/:\d+$/, ''))?.kind === 'inner-call';
}

/**
 * What `hostname` names, or undefined for any other host.
 * @example classifyHost('game-profile.inner-call.dyc.ivolces.com') // { kind: 'inner-call', pair: 'game-profile' }
 */
export function classifyHost(hostname: string): IntranetHost | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (!maybeIntranet(host)) return undefined;
  if (PUSH_HOSTS.includes(host)) return { kind: 'ws-push' };
  if (host === WEBCAST_INTRANET_HOST || host === WEBCAST_PUBLIC_HOST) return { kind: 'webcast' };
  const tos = TOS_HOST.exec(host);
  if (tos !== null) return { kind: 'tos', region: tos[2]!, ...(tos[1] === undefined ? {} : { bucket: tos[1] }) };
  for (const suffix of INNER_CALL_SUFFIXES) {
    if (!host.endsWith(suffix)) continue;
    const pair = host.slice(0, -suffix.length);
    // One label, `{from}-{to}`: both ids non-empty, so at least one hyphen inside.
    if (/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(pair) && pair.includes('-')) return { kind: 'inner-call', pair };
  }
  return undefined;
}
