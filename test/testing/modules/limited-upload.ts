/** A function module with its own config, for invoke(module): uploads up to 1 MiB. */
import { isUploadFile, type Handler, type MultipartParams } from '../../../src/index.js';

export const config = { maxBodySize: 1024 * 1024 };

const upload: Handler<MultipartParams, { name: string; size: number }> = (params) => {
  const file = params.file;
  if (!isUploadFile(file)) throw new Error('no file part');
  return { name: file.name, size: file.size };
};

export default upload;
