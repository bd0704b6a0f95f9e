/**
 * The TOS operations the local store answers, picked from a signed request as the SDK sends
 * them (method; bucket from the host; key from the path; the sub-resource in the query) and
 * answered in TOS's wire shapes: JSON bodies with TOS's capitalized names, `ETag`,
 * `x-tos-hash-crc64ecma`, `x-tos-meta-*` and the stored content headers. An operation the store
 * does not emulate (ACLs, tagging, versions, image processing...) is refused with
 * `NotImplemented`, naming it. This file picks the operation; each family answers it in its
 * own file: object-operations.ts, listing-operations.ts, multipart-operations.ts.
 */
import { storageError } from './errors.js';
import { listBuckets, listObjectsType2 } from './listing-operations.js';
import {
  completeMultipartUpload,
  createMultipartUpload,
  listMultipartUploads,
  listParts,
  uploadPart,
} from './multipart-operations.js';
import { deleteMultiObjects, getObject, putObject } from './object-operations.js';
import type { TosAnswer, TosCall, TosHttpOptions } from './tos-call.js';

/**
 * TOS's sub-resources (query names) that name an operation the local store does not emulate.
 * Other unknown names are ignored, as TOS ignores them (the SDK sends `list-only-once`).
 */
const NOT_EMULATED = [
  'acl',
  'tagging',
  'cors',
  'policy',
  'lifecycle',
  'versioning',
  'versions',
  'append',
  'restore',
  'retention',
  'symlink',
  'rename',
  'fetch',
  'fetchTask',
  'website',
  'encryption',
  'mirror',
  'replication',
  'customdomain',
  'inventory',
  'notification',
  'logging',
  'object-lock',
  'x-tos-process',
  'x-image-process',
  'modify',
];

/**
 * Runs one parsed request against the store.
 * @example const answer = await runOperation(options, call)
 */
export async function runOperation(options: TosHttpOptions, call: TosCall): Promise<TosAnswer> {
  const { method, bucket, key, query } = call;
  for (const name of query.keys()) {
    const version = name === 'versionId' && query.get(name) !== 'null' && query.get(name) !== '';
    if (version || NOT_EMULATED.includes(name))
      throw storageError('NotImplemented', `${method} with the ?${name} sub-resource`);
  }
  if (bucket === undefined) {
    if (method === 'GET') return listBuckets(options);
    throw storageError('MethodNotAllowed', method, 'the service (no bucket in the host or path)');
  }
  if (key === undefined) return bucketOperation(options, call, bucket);
  return objectOperation(options, call, bucket, key);
}

async function bucketOperation(options: TosHttpOptions, call: TosCall, bucket: string): Promise<TosAnswer> {
  const { store } = options;
  const { method, query } = call;
  switch (method) {
    case 'PUT':
      await store.createBucket(bucket);
      return { status: 200, headers: { location: `/${bucket}` } };
    case 'HEAD':
      if (!(await store.hasBucket(bucket))) throw storageError('NoSuchBucket', bucket);
      return { status: 200, headers: { 'x-tos-bucket-region': options.region, 'x-tos-storage-class': 'STANDARD' } };
    case 'DELETE':
      await store.deleteBucket(bucket);
      return { status: 204 };
    case 'POST':
      if (query.has('delete')) return deleteMultiObjects(options, call, bucket);
      throw storageError('MethodNotAllowed', method, `the bucket ${bucket} (only POST ?delete)`);
    case 'GET':
      if (query.has('uploads')) return listMultipartUploads(options, bucket);
      if (query.get('list-type') === '2') return listObjectsType2(options, call, bucket);
      throw storageError('NotImplemented', 'listObjects (version 1); call listObjectsType2');
    default:
      throw storageError('MethodNotAllowed', method, `the bucket ${bucket}`);
  }
}

async function objectOperation(
  options: TosHttpOptions,
  call: TosCall,
  bucket: string,
  key: string,
): Promise<TosAnswer> {
  const { store } = options;
  const { method, query } = call;
  const uploadId = query.get('uploadId');
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (uploadId !== null && method === 'GET') return listParts(options, call, bucket, key, uploadId);
      return getObject(options, call, bucket, key);
    case 'PUT':
      if (uploadId !== null) return uploadPart(options, call, bucket, key, uploadId);
      return putObject(options, call, bucket, key);
    case 'DELETE':
      if (uploadId !== null) {
        await store.abortMultipartUpload(bucket, key, uploadId);
        return { status: 204 };
      }
      await store.deleteObject(bucket, key);
      return { status: 204 };
    case 'POST':
      if (query.has('uploads')) return createMultipartUpload(options, call, bucket, key);
      if (uploadId !== null) return completeMultipartUpload(options, call, bucket, key, uploadId);
      throw storageError(
        'NotImplemented',
        'POST on an object without ?uploads or ?uploadId (appendObject, post-object forms)',
      );
    default:
      throw storageError('MethodNotAllowed', method, `the object ${key}`);
  }
}
