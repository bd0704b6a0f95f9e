/**
 * What the server SDK stand-in shows on the dev console: its database (`GET
 * ${CLOUDFN_PREFIX}/api/database`, browse.ts; its writes are database/console-api.ts) and the `database`
 * event of the console's feed when the store's files change. Types only, with no Node types: the
 * console page's browser build imports them too.
 */

/** `GET ${CLOUDFN_PREFIX}/api/database[?collection=…]`: the SDK stand-in's database. */
export interface DatabaseView {
  /** The folder holding the collection files. */
  dir: string;
  collections: { name: string; count: number }[];
  /** The documents of the collection asked for, when one was. */
  collection?: { name: string; count: number; documents: Record<string, unknown>[] };
}

/** The console feed's events this extension publishes, with their data. */
export interface SdkEvents {
  /** The database stand-in's files changed (any process): `at` is when it was seen. */
  database: { at: number };
}
