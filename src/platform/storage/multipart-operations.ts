/**
 * The TOS multipart operations the local store answers: `createMultipartUpload`, `uploadPart`
 * (not `uploadPartCopy`), `listParts`, `completeMultipartUpload` (the listed parts, or every
 * part with `x-tos-complete-all: yes`) and `listMultipartUploads`, in TOS's wire shapes.
 */
import { storageError } from './errors.js';
import { encodeKey, ensureBucket, header, intQuery, OWNER, readHead, readJson } from './operation-shared.js';
import type { TosAnswer, TosCall, TosHttpOptions } from './tos-call.js';

/** `POST /<key>?uploads`: a new upload, its bucket made on first write. */
export async function createMultipartUpload(
  options: TosHttpOptions,
  call: TosCall,
  bucket: string,
  key: string,
): Promise<TosAnswer> {
  const { query, req } = call;
  await ensureBucket(options, bucket);
  const { uploadId: created } = await options.store.createMultipartUpload(bucket, key, readHead(req));
  return { status: 200, json: { Bucket: bucket, Key: encodeKey(key, query), UploadId: created } };
}

/** `PUT /<key>?uploadId&partNumber`: one part stored. */
export async function uploadPart(
  options: TosHttpOptions,
  call: TosCall,
  bucket: string,
  key: string,
  uploadId: string,
): Promise<TosAnswer> {
  const { query, req } = call;
  if (req.headers['x-tos-copy-source'] !== undefined) throw storageError('NotImplemented', 'uploadPartCopy');
  const partNumber = Number(query.get('partNumber'));
  const part = await options.store.uploadPart(bucket, key, uploadId, partNumber, req, header(req, 'content-md5'));
  return { status: 200, headers: { etag: part.etag, 'x-tos-hash-crc64ecma': part.crc64 } };
}

/** `GET /?uploads`: the uploads in progress in the bucket. */
export async function listMultipartUploads(options: TosHttpOptions, bucket: string): Promise<TosAnswer> {
  const uploads = await options.store.listMultipartUploads(bucket);
  return {
    status: 200,
    json: {
      Bucket: bucket,
      IsTruncated: false,
      Uploads: uploads.map((upload) => ({
        Key: upload.key,
        UploadId: upload.uploadId,
        Initiated: upload.initiated.toISOString(),
        StorageClass: 'STANDARD',
        Owner: OWNER,
      })),
      CommonPrefixes: [],
    },
  };
}

/** `GET /<key>?uploadId`: a page of the parts uploaded so far. */
export async function listParts(
  options: TosHttpOptions,
  call: TosCall,
  bucket: string,
  key: string,
  uploadId: string,
): Promise<TosAnswer> {
  const { query } = call;
  const maxParts = intQuery(query, 'max-parts') ?? 1000;
  const marker = intQuery(query, 'part-number-marker') ?? 0;
  const page = await options.store.listParts(bucket, key, uploadId, { maxParts, partNumberMarker: marker });
  return {
    status: 200,
    json: {
      Bucket: bucket,
      Key: encodeKey(key, query),
      UploadId: uploadId,
      PartNumberMarker: marker,
      NextPartNumberMarker: page.nextPartNumberMarker ?? 0,
      MaxParts: maxParts,
      IsTruncated: page.truncated,
      StorageClass: 'STANDARD',
      Owner: OWNER,
      Parts: page.parts.map((part) => ({
        PartNumber: part.partNumber,
        LastModified: part.lastModified.toISOString(),
        ETag: part.etag,
        Size: part.size,
        HashCrc64ecma: part.crc64,
      })),
    },
  };
}

/** `POST /<key>?uploadId`: the parts joined into the object. */
export async function completeMultipartUpload(
  options: TosHttpOptions,
  call: TosCall,
  bucket: string,
  key: string,
  uploadId: string,
): Promise<TosAnswer> {
  const { req, host } = call;
  const all = (header(req, 'x-tos-complete-all') ?? '').toLowerCase() === 'yes';
  let parts: { partNumber: number; etag: string }[] | 'all' = 'all';
  if (!all) {
    const body = (await readJson(req, 'completeMultipartUpload')) as {
      Parts?: { ETag?: unknown; PartNumber?: unknown }[];
    };
    if (!Array.isArray(body?.Parts))
      throw storageError(
        'InvalidArgument',
        'Parts',
        'missing',
        'send { "Parts": [{ "ETag", "PartNumber" }] } or the header x-tos-complete-all: yes',
      );
    parts = body.Parts.map((part) => {
      if (typeof part?.ETag !== 'string' || !Number.isInteger(part?.PartNumber))
        throw storageError(
          'InvalidArgument',
          'a part',
          JSON.stringify(part),
          'give each part its ETag (a string) and PartNumber (a whole number)',
        );
      return { etag: part.ETag, partNumber: part.PartNumber as number };
    });
  }
  const completed = all ? (await options.store.listParts(bucket, key, uploadId)).parts : undefined;
  const info = await options.store.completeMultipartUpload(bucket, key, uploadId, parts);
  const location = `https://${host.startsWith(`${bucket}.`) ? host : `${bucket}.${host}`}/${encodeURIComponent(key)}`;
  return {
    status: 200,
    headers: { etag: info.etag, 'x-tos-hash-crc64ecma': info.crc64, location },
    json: {
      Bucket: bucket,
      Key: key,
      ETag: info.etag,
      Location: location,
      HashCrc64ecma: info.crc64,
      ...(completed
        ? { CompletedParts: completed.map((part) => ({ PartNumber: part.partNumber, ETag: part.etag })) }
        : {}),
    },
  };
}
