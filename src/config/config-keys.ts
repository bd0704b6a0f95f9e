/**
 * The top-level keys of cloudfn.config that the tooling reads beside the runtime's options, in
 * one list: each local service's (its extension names them from here) and `checkRequests`
 * (`cloudfn build --target function-service --check`). `cloudfn start`, `build` and `testing`
 * learn the known keys here, without importing the dev server's list of services, so reading a
 * config loads no service and no import loop runs through the build.
 */

/** The keys each local service reads, by the service's name. */
export const SERVICE_CONFIG_KEYS = {
  services: ['serviceId', 'innerCall', 'gatewayLimits'],
  components: ['components'],
  live: ['liveData'],
  gateway: ['devUser', 'gateway'],
} as const satisfies Readonly<Record<string, readonly string[]>>;

/** The keys read by the build alone. */
export const BUILD_CONFIG_KEYS: readonly string[] = ['checkRequests'];

/**
 * Every key the tooling accepts: the services' and the build's. Every command accepts them, so
 * `start` and `dev` judge a config alike.
 */
export const TOOL_CONFIG_KEYS: readonly string[] = [...Object.values(SERVICE_CONFIG_KEYS).flat(), ...BUILD_CONFIG_KEYS];
