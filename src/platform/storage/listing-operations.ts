/**
 * The TOS listing operations the local store answers: `listBuckets` and `listObjectsType2`, in
 * TOS's JSON shapes (keys and prefixes URL-encoded when the request asks).
 */
import type { TosAnswer, TosCall, TosHttpOptions } from './tos-call.js';
import { encodeKey, intQuery, OWNER } from './operation-shared.js';

/** `GET /`: every bucket, in the region the local TOS stands for. */
export async function listBuckets(options: TosHttpOptions): Promise<TosAnswer> {
  const buckets = await options.store.listBuckets();
  return {
    status: 200,
    json: {
      Buckets: buckets.map((bucket) => ({
        Name: bucket.name,
        CreationDate: bucket.created.toISOString(),
        Location: options.region,
        ExtranetEndpoint: `tos-${options.region}.volces.com`,
        IntranetEndpoint: `tos-${options.region}.ivolces.com`,
        Owner: { ID: OWNER.ID },
      })),
      Owner: { ID: OWNER.ID },
    },
  };
}

/** `GET /?list-type=2`: one page of the bucket's objects. */
export async function listObjectsType2(options: TosHttpOptions, call: TosCall, bucket: string): Promise<TosAnswer> {
  const { query } = call;
  const prefix = query.get('prefix') ?? '';
  const delimiter = query.get('delimiter') ?? '';
  const maxKeys = intQuery(query, 'max-keys') ?? 1000;
  const continuationToken = query.get('continuation-token') ?? undefined;
  const startAfter = query.get('start-after') ?? undefined;
  const page = await options.store.listObjects(bucket, {
    prefix,
    delimiter,
    maxKeys,
    ...(continuationToken ? { continuationToken } : {}),
    ...(startAfter ? { startAfter } : {}),
  });
  const fetchOwner = query.get('fetch-owner') === 'true';
  return {
    status: 200,
    json: {
      Name: bucket,
      Prefix: encodeKey(prefix, query),
      MaxKeys: maxKeys,
      ...(delimiter ? { Delimiter: encodeKey(delimiter, query) } : {}),
      ...(query.get('encoding-type') ? { EncodingType: query.get('encoding-type') } : {}),
      ...(startAfter ? { StartAfter: encodeKey(startAfter, query) } : {}),
      ...(continuationToken ? { ContinuationToken: continuationToken } : {}),
      IsTruncated: page.truncated,
      KeyCount: page.objects.length + page.commonPrefixes.length,
      ...(page.nextContinuationToken ? { NextContinuationToken: page.nextContinuationToken } : {}),
      CommonPrefixes: page.commonPrefixes.map((p) => ({ Prefix: encodeKey(p, query) })),
      Contents: page.objects.map((info) => ({
        Key: encodeKey(info.key, query),
        LastModified: info.lastModified.toISOString(),
        ETag: info.etag,
        Size: info.size,
        StorageClass: 'STANDARD',
        HashCrc64ecma: info.crc64,
        ...(fetchOwner ? { Owner: OWNER } : {}),
      })),
    },
  };
}
