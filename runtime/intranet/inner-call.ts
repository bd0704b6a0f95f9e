/**
 * Where a service-to-service call goes, as the platform decides it: the host
 * `{from}-{to}.inner-call.dyc.ivolces.com` (or `{from}-{to}.dycloud.service`) split against the
 * known service ids, then checked the platform's way: HTTP only, the caller named in the host is
 * the calling service itself (`SERVICE_ID`), and the target is one the caller enabled. Pure
 * decisions; `cloudfn dev` (every check) and `cloudfn start` (its map of targets) both use them.
 */
import type { IntranetRoute } from './intercept.js';

/** A local address a service listens on. */
export interface ServiceAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * The address of a base URL (`http://127.0.0.1:8001`, `http://[::1]:80`).
 * @example addressOf('http://10.0.0.5:8000') // { host: '10.0.0.5', port: 8000 }
 */
export function addressOf(url: string): ServiceAddress {
  const parsed = new URL(url);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || 80) };
}

/** What the calling service knows of the app. */
export interface InnerCallTable {
  /** The calling service's id (`SERVICE_ID`). */
  readonly self: string;
  /** The services reachable, by id. */
  readonly services: ReadonlyMap<string, ServiceAddress>;
  /**
   * The targets the caller enabled (`innerCall`); undefined: every service of `services`
   * (a self-hosted fleet's map names only what it allows).
   */
  readonly enabled?: readonly string[];
  /** Where the caller enables a target, for the refusal's fix, e.g. `innerCall in game/cloudfn.config.json`. */
  readonly enableWhere: string;
  /**
   * A call naming a service that is not in `services`: refused with the known ids (dev, where
   * every service of the session is known), or left alone (undefined: the real DNS answers).
   * @default 'refuse'
   */
  readonly unknown?: 'refuse' | 'pass';
  /**
   * The fix a refusal gives for an enabled target that is not running.
   * @default `start it beside this one (cloudfn dev {from} {to})`
   */
  readonly startFix?: (from: string, to: string) => string;
}

/** The `{from}-{to}` of a host, split against known ids: the caller's own id first. */
function split(pair: string, table: InnerCallTable): { from: string; to: string } | undefined {
  const known = [table.self, ...table.services.keys()];
  const candidates: Array<{ from: string; to: string }> = [];
  for (let at = pair.indexOf('-'); at > 0; at = pair.indexOf('-', at + 1)) {
    const from = pair.slice(0, at);
    const to = pair.slice(at + 1);
    if (to !== '' && known.includes(from)) candidates.push({ from, to });
  }
  return (
    candidates.find((c) => c.from === table.self && table.services.has(c.to)) ??
    candidates.find((c) => c.from === table.self) ??
    candidates.find((c) => table.services.has(c.to)) ??
    candidates[0]
  );
}

/**
 * Decides one call to an inner-call host: a local address, a refusal naming the fix, or
 * undefined (not ours to answer).
 * @example
 * innerCallRoute({ self: 'game', services, enabled: ['profile'], enableWhere: 'innerCall' }, 'http:', 'game-profile')
 * // { host: '127.0.0.1', port: 8001 }
 */
export function innerCallRoute(
  table: InnerCallTable,
  protocol: 'http:' | 'https:',
  pair: string,
): IntranetRoute | undefined {
  const found = split(pair, table);
  if (found === undefined) {
    if (table.unknown === 'pass') return undefined;
    return {
      refuse: `inner call to ${pair}: no known service id in it (this service is "${table.self}", the session has ${[...table.services.keys()].join(', ') || 'no other service'}); call http://${table.self}-<target id>.inner-call.dyc.ivolces.com/<path>`,
    };
  }
  const { from, to } = found;
  if (!table.services.has(to) && table.unknown === 'pass') return undefined;
  if (protocol === 'https:')
    return {
      refuse: `inner call ${from} -> ${to} over https: the platform's inner calls are HTTP only; call http://${pair}.inner-call.dyc.ivolces.com/<path>`,
    };
  if (from !== table.self)
    return {
      refuse: `inner call ${from} -> ${to}: the host names the caller "${from}", but this service is "${table.self}" (SERVICE_ID); call http://${table.self}-${to}.inner-call.dyc.ivolces.com/<path>`,
    };
  if (table.enabled !== undefined && !table.enabled.includes(to))
    return {
      refuse: `inner call ${from} -> ${to}: "${to}" is not enabled for "${from}"; add "${to}" to ${table.enableWhere} (the platform enables targets on the source service)`,
    };
  const address = table.services.get(to);
  if (address === undefined)
    return {
      refuse: `inner call ${from} -> ${to}: no service "${to}" runs here (services: ${[...table.services.keys()].join(', ') || 'none'}); ${table.startFix?.(from, to) ?? `start it beside this one (cloudfn dev ${from} ${to})`}`,
    };
  return address;
}
