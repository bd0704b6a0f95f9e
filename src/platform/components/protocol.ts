/**
 * What the components extension (service.ts) answers the dev console at `GET
 * ${CLOUDFN_PREFIX}/api/components`. Types only, with no Node types: the console page's browser build
 * imports them too.
 */

/** `GET ${CLOUDFN_PREFIX}/api/components`: each component the config names. */
export interface ComponentsAnswer {
  components: Array<{
    /** `redis`, `mysql` or `mongo`. */
    name: string;
    /** What `<NAME>_ADDRESS` holds: `host:port` (Mongo: a comma list). */
    address: string;
    /** Where a server this dev server started keeps its data; undefined for a given URL or a shared server. */
    dir: string | undefined;
    /**
     * A local server's state under dev's supervision: `running`, `restarting` (it ended and is
     * being started again) or `failed` (it ended too often and was given up on); undefined for a
     * server given by URL.
     */
    state?: 'running' | 'restarting' | 'failed';
    /** How often it was restarted and how it last ended, e.g. `restarted 1 time; last ended by SIGKILL`. */
    detail?: string;
  }>;
}
