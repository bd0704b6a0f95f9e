/**
 * What the local object store shows on the dev console (`GET <CLOUDFN_PREFIX>/api/storage`, its writes
 * under the same path: console-api.ts). Types only, with no Node types: the console page's browser
 * build imports them too.
 */

/** Where the console's storage API is, under `<CLOUDFN_PREFIX>/`. */
export const STORAGE_API_ROUTE = 'api/storage';

/** One object as the panel lists it. */
export interface StorageObjectView {
  key: string;
  size: number;
  etag: string;
  /** ISO time. */
  lastModified: string;
  contentType: string;
}

/** `GET <CLOUDFN_PREFIX>/api/storage[?bucket=…&prefix=…]`: the buckets, and one bucket's objects under a prefix. */
export interface StorageView {
  /** The store's folder. */
  dir: string;
  /** The bucket `TOS_BUCKET` names, where `uploadFile` writes. */
  defaultBucket: string;
  buckets: { name: string }[];
  /** The bucket asked for, its objects under `prefix` one level down (`/` the delimiter). */
  listing?: {
    bucket: string;
    prefix: string;
    /** The "folders" under the prefix, each ending with `/`. */
    prefixes: string[];
    objects: StorageObjectView[];
    /** More objects than the first page shows. */
    truncated: boolean;
  };
}

/** `POST <CLOUDFN_PREFIX>/api/storage/presign` `{ bucket, key, expires? }`: a presigned GET URL. */
export interface PresignAnswer {
  url: string;
  /** Seconds it lives. */
  expires: number;
}
