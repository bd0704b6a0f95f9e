/**
 * What the services extension (service.ts) answers the dev console at `GET
 * ${CLOUDFN_PREFIX}/api/services`: this service and every service of the session. Types only, with no
 * Node types: the console page's browser build imports them too.
 */

/** One service of the session, as this service sees it. */
export interface ServiceEntry {
  /** Its `SERVICE_ID`. */
  id: string;
  /** Its base URL: `http://127.0.0.1:8001`. */
  url: string;
  /** Its console page: `http://127.0.0.1:8001${CLOUDFN_PREFIX}/`. */
  console: string;
  /** Whether it is the service answering. */
  self: boolean;
  /** Whether the answering service enabled it in `innerCall` (may call it). */
  enabled: boolean;
}

/** `GET ${CLOUDFN_PREFIX}/api/services`. */
export interface ServicesAnswer {
  /** The answering service's id. */
  self: string;
  /** The ids its `innerCall` enables, in the session or not. */
  innerCall: readonly string[];
  services: ServiceEntry[];
}
