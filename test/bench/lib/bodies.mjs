/**
 * The request bodies of the benchmark, written once to a temporary folder for wrk to send.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A JSON object of about `bytes` bytes, shaped like an API payload. */
export function jsonBody(bytes = 1024) {
  const items = [];
  let text = '';
  for (let i = 0; text.length < bytes - 40; i++) {
    items.push({ id: i, name: `item-${i}`, tags: ['a', 'b'], price: i * 1.25, ok: i % 2 === 0 });
    text = JSON.stringify({ user: 'bench', page: 1, items });
  }
  return text;
}

/** A multipart/form-data body holding one file of `size` bytes. */
export function multipartBody(size = 8 * 1024 * 1024) {
  const boundary = '----cloudfnbench7MA4YWxkTrZu0gW';
  const file = Buffer.alloc(size);
  for (let i = 0; i < size; i += 4096) file.write('cloudfn benchmark payload ', i, 'latin1');
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="video.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    'latin1',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1');
  return { body: Buffer.concat([head, file, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Writes the bodies into `dir` and returns their paths and types. */
export function writeBodies(dir) {
  const json = join(dir, 'echo.json');
  writeFileSync(json, jsonBody());
  const upload = multipartBody();
  const uploadFile = join(dir, 'upload.bin');
  writeFileSync(uploadFile, upload.body);
  return {
    json: { method: 'POST', bodyFile: json, contentType: 'application/json' },
    upload: { method: 'POST', bodyFile: uploadFile, contentType: upload.contentType, bytes: upload.body.length },
  };
}
