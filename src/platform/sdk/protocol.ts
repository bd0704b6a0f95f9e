/**
 * What the server SDK stand-in shows on the dev console: its database (`GET
 * /_cloudfn/api/database`, browse.ts). Types only, with no Node types: the console page's
 * browser build imports them too.
 */

/** `GET /_cloudfn/api/database[?collection=…]`: the SDK stand-in's database. */
export interface DatabaseView {
  /** The folder holding the collection files. */
  dir: string;
  collections: { name: string; count: number }[];
  /** The documents of the collection asked for, when one was. */
  collection?: { name: string; count: number; documents: Record<string, unknown>[] };
}
