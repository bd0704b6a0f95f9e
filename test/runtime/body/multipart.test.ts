import { describe, expect, it } from 'vitest';
import { CloudfnError } from '../../../runtime/errors.js';
import { parseBody } from '../../../runtime/body/parse-body.js';
import type { Limits, UploadFile } from '../../../runtime/types.js';

const defaults: Limits = {
  maxBodySize: 10 * 1024 * 1024,
  maxFileSize: 10 * 1024 * 1024,
  maxFiles: 10,
  maxFields: 100,
  maxParts: 110,
  maxFieldSize: 1024 * 1024,
  maxPartHeaderPairs: 2000,
  maxParams: 1000,
};
const TYPE = 'multipart/form-data; boundary=----cloudfnTestBoundary';

interface Part {
  name?: string;
  filename?: string;
  type?: string;
  headers?: string[];
  body: string | Buffer;
}

/** Writes a multipart body by hand (RFC 7578), so malformed variants are easy to make. */
function multipart(parts: Part[], boundary = '----cloudfnTestBoundary', end = `--${boundary}--\r\n`): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const lines = [`--${boundary}`];
    if (part.name !== undefined) {
      const file = part.filename === undefined ? '' : `; filename="${part.filename}"`;
      lines.push(`Content-Disposition: form-data; name="${part.name}"${file}`);
    }
    if (part.type !== undefined) lines.push(`Content-Type: ${part.type}`);
    lines.push(...(part.headers ?? []));
    chunks.push(Buffer.from(lines.join('\r\n') + '\r\n\r\n'), Buffer.from(part.body), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(end));
  return Buffer.concat(chunks);
}

async function parse(body: Buffer, limits: Partial<Limits> = {}, type = TYPE): Promise<Record<string, unknown>> {
  const result = parseBody(type, body, { ...defaults, ...limits }, { protoAction: 'error' });
  expect(result).toBeInstanceOf(Promise);
  return (await result) as Record<string, unknown>;
}

async function rejection(body: Buffer, limits: Partial<Limits> = {}, type = TYPE): Promise<CloudfnError> {
  const error = await parse(body, limits, type).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CloudfnError);
  return error as CloudfnError;
}

const file = (name: string, content: string | Buffer, type = 'application/octet-stream'): UploadFile => {
  const buffer = Buffer.from(content);
  return { name, type, size: buffer.length, buffer };
};

describe('parseBody: multipart/form-data', () => {
  it.each<[string, Part[], Record<string, unknown>]>([
    ['one field', [{ name: 'a', body: '1' }], { a: '1' }],
    ['UTF-8 field value and name', [{ name: '名字', body: '你好' }], { 名字: '你好' }],
    ['an empty field', [{ name: 'a', body: '' }], { a: '' }],
    [
      'a repeated field gives an array',
      [
        { name: 'a', body: '1' },
        { name: 'a', body: '2' },
        { name: 'a', body: '3' },
      ],
      { a: ['1', '2', '3'] },
    ],
    [
      'a file',
      [{ name: 'f', filename: 'a.txt', type: 'text/plain', body: 'hello' }],
      { f: file('a.txt', 'hello', 'text/plain') },
    ],
    [
      'a repeated file key keeps the later file',
      [
        { name: 'f', filename: 'first.png', type: 'image/png', body: 'one' },
        { name: 'f', filename: 'second.png', type: 'image/png', body: 'two!' },
      ],
      { f: file('second.png', 'two!', 'image/png') },
    ],
    [
      'a file without Content-Type is text/plain (RFC 7578)',
      [{ name: 'f', filename: 'x', body: 'abc' }],
      { f: file('x', 'abc', 'text/plain') },
    ],
    [
      'a named empty file is kept',
      [{ name: 'f', filename: 'empty.txt', type: 'text/plain', body: '' }],
      { f: file('empty.txt', '', 'text/plain') },
    ],
    [
      'an empty file input is left out',
      [
        { name: 'f', filename: '', type: 'application/octet-stream', body: '' },
        { name: 'a', body: '1' },
      ],
      { a: '1' },
    ],
    [
      'a field after a file of the same key replaces it',
      [
        { name: 'k', filename: 'x', body: 'x' },
        { name: 'k', body: 'v' },
      ],
      { k: 'v' },
    ],
    [
      'a file after fields of the same key replaces them',
      [
        { name: 'k', body: 'v' },
        { name: 'k', filename: 'x', type: 'a/b', body: 'x' },
      ],
      { k: file('x', 'x', 'a/b') },
    ],
    [
      'poisoned field names are dropped',
      [
        { name: '__proto__', body: 'x' },
        { name: 'constructor', body: 'y' },
        { name: 'prototype', filename: 'p', body: 'z' },
        { name: 'ok', body: '1' },
      ],
      { ok: '1' },
    ],
    [
      'a part without a name is left out',
      [
        { headers: ['Content-Disposition: form-data'], body: 'x' },
        { name: 'a', body: '1' },
      ],
      { a: '1' },
    ],
    [
      'a part without Content-Disposition is left out',
      [
        { type: 'text/plain', body: 'x' },
        { name: 'a', body: '1' },
      ],
      { a: '1' },
    ],
    [
      'binary file content survives',
      [{ name: 'b', filename: 'b.bin', type: 'application/octet-stream', body: Buffer.from([0, 13, 10, 45, 45, 255]) }],
      { b: file('b.bin', Buffer.from([0, 13, 10, 45, 45, 255])) },
    ],
  ])('%s', async (_name, parts, expected) => {
    const result = await parse(multipart(parts));
    expect({ ...result }).toStrictEqual(expected);
    expect('toString' in result).toBe(false);
  });

  it('reads what the platform FormData encoder writes', async () => {
    const form = new FormData();
    form.append('title', 'My video');
    form.append('tag', 'a');
    form.append('tag', 'b');
    form.append('video', new Blob([Buffer.from('fake mp4 bytes')], { type: 'video/mp4' }), 'clip 1.mp4');
    form.append('avatar', new Blob([Buffer.from('first')], { type: 'image/png' }), 'old.png');
    form.append('avatar', new Blob([Buffer.from('second')], { type: 'image/png' }), '头像.png');
    const request = new Request('http://127.0.0.1/', { method: 'POST', body: form });
    const body = Buffer.from(await request.arrayBuffer());
    const result = await parse(body, {}, request.headers.get('content-type') as string);
    expect({ ...result }).toStrictEqual({
      title: 'My video',
      tag: ['a', 'b'],
      video: file('clip 1.mp4', 'fake mp4 bytes', 'video/mp4'),
      avatar: file('头像.png', 'second', 'image/png'),
    });
  });

  it.each([
    ['multipart/form-data; boundary="quoted boundary"', 'quoted boundary'],
    ['Multipart/Form-Data; charset=utf-8; boundary="a;b=c"', 'a;b=c'],
    ['multipart/form-data;boundary=simple', 'simple'],
  ])('accepts the boundary of %j', async (type, boundary) => {
    const result = await parse(multipart([{ name: 'a', body: '1' }], boundary), {}, type);
    expect({ ...result }).toStrictEqual({ a: '1' });
  });

  it('reads large files whole, in one parse', async () => {
    const big = Buffer.alloc(9 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
    const parts: Part[] = [{ name: 'video', filename: 'v.mp4', type: 'video/mp4', body: big }];
    for (let i = 0; i < 50; i++) parts.push({ name: `f${i}`, body: 'x'.repeat(1000) });
    const result = await parse(multipart(parts));
    const video = result['video'] as UploadFile;
    expect(video.size).toBe(big.length);
    expect(video.buffer.equals(big)).toBe(true);
    expect(Object.keys(result)).toHaveLength(51);
  });

  it('ignores parts after the closing delimiter (busboy alone would wait for them forever)', async () => {
    const b = '----cloudfnTestBoundary';
    const body = Buffer.from(
      `--${b}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${b}--\r\n--${b}\r\n` +
        `Content-Disposition: form-data; name="f"; filename="x.bin"\r\n\r\n `,
    );
    expect({ ...(await parse(body)) }).toStrictEqual({ a: '1' });
  });

  it('gives {} for an empty body', async () => {
    expect({ ...(await parse(Buffer.alloc(0))) }).toStrictEqual({});
  });

  it('lets every limit be reached exactly', async () => {
    const limits = { maxFileSize: 5, maxFieldSize: 3, maxFiles: 1, maxFields: 2, maxParts: 3, maxPartHeaderPairs: 2 };
    const body = multipart([
      { name: 'a', body: 'abc' },
      { name: 'b', body: 'xyz', headers: ['X-Extra: 1'] },
      { name: 'f', filename: 'f', type: 'a/b', body: '12345' },
    ]);
    expect({ ...(await parse(body, limits)) }).toStrictEqual({ a: 'abc', b: 'xyz', f: file('f', '12345', 'a/b') });
  });

  it.each<[string, Partial<Limits>, Part[]]>([
    ['maxFileSize', { maxFileSize: 4 }, [{ name: 'f', filename: 'f', body: '12345' }]],
    ['maxFileSize', { maxFileSize: 1000 }, [{ name: 'f', filename: 'f', body: Buffer.alloc(200_000, 1) }]],
    ['maxFieldSize', { maxFieldSize: 2 }, [{ name: 'a', body: 'abc' }]],
    [
      'maxFiles',
      { maxFiles: 1 },
      [
        { name: 'f', filename: 'f', body: '1' },
        { name: 'g', filename: 'g', body: '2' },
      ],
    ],
    [
      'maxFields',
      { maxFields: 1 },
      [
        { name: 'a', body: '1' },
        { name: 'b', body: '2' },
      ],
    ],
    [
      'maxParts',
      { maxParts: 2 },
      [
        { name: 'a', body: '1' },
        { name: 'f', filename: 'f', body: '2' },
        { name: 'b', body: '3' },
      ],
    ],
    [
      'maxPartHeaderPairs',
      { maxPartHeaderPairs: 2 },
      [{ name: 'a', type: 'text/plain', headers: ['X-A: 1'], body: '1' }],
    ],
    ['maxPartHeaderPairs', {}, [{ name: 'a', headers: Array.from({ length: 2000 }, () => 'x:1'), body: '1' }]],
  ])('refuses a body over %s with 413 naming it', async (limit, limits, parts) => {
    const error = await rejection(multipart(parts), limits);
    expect([error.code, error.status]).toEqual(['CLOUDFN_MULTIPART_LIMIT', 413]);
    expect(error.message).toContain(limit);
    expect(error.message).toContain(String({ ...defaults, ...limits }[limit as keyof Limits]));
  });

  const valid = multipart([
    { name: 'a', body: '1' },
    { name: 'f', filename: 'f.txt', body: 'hello' },
  ]);
  it.each<[string, Buffer, string, string]>([
    ['no boundary', valid, 'multipart/form-data', 'no boundary'],
    ['an empty boundary', valid, 'multipart/form-data; boundary=""', 'no boundary'],
    ['a body cut inside a field', valid.subarray(0, 60), TYPE, 'Unexpected end of form'],
    ['a body cut inside a file', valid.subarray(0, valid.length - 40), TYPE, 'Unexpected end of form'],
    [
      'a body without the closing delimiter',
      multipart([{ name: 'a', body: '1' }], undefined, ''),
      TYPE,
      'Unexpected end of form',
    ],
    [
      'a malformed part header',
      multipart([{ headers: ['Content-Disposition form-data; name="a"'], body: '1' }]),
      TYPE,
      'Malformed part header',
    ],
    [
      'a part header with a bad character',
      multipart([{ headers: ['Content-Disposition: form-data; name="a"', 'Bad\u0001: x'], body: '1' }]),
      TYPE,
      'Malformed part header',
    ],
    ['a body that is not multipart', Buffer.from('just some text'), TYPE, 'Unexpected end of form'],
    ['another boundary than declared', valid, 'multipart/form-data; boundary=other', 'Unexpected end of form'],
  ])('refuses %s with 400', async (_name, body, type, detail) => {
    const error = await rejection(body, {}, type);
    expect([error.code, error.status]).toEqual(['CLOUDFN_BAD_MULTIPART', 400]);
    expect(error.message).toContain(detail);
  });
});

describe('parseBody: multipart parts busboy alone would change or drop', () => {
  it('keeps a file part sent with filename="" and content as an UploadFile, bytes intact', async () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x0d, 0x0a]);
    const result = await parse(
      multipart([
        { name: 'f', filename: '', type: 'image/png', body: bytes },
        { name: 'a', body: '1' },
      ]),
    );
    expect(result['f']).toStrictEqual(file('', bytes, 'image/png'));
    expect(result['a']).toBe('1');
  });

  it('keeps a large filename="" part whole too (the large-part path)', async () => {
    const bytes = Buffer.alloc(200 * 1024, 0xff);
    const result = await parse(multipart([{ name: 'f', filename: '', type: 'text/plain', body: bytes }]));
    expect(result['f']).toStrictEqual(file('', bytes, 'text/plain'));
  });

  it('still leaves out an empty file input (no file name, no bytes)', async () => {
    const result = await parse(multipart([{ name: 'f', filename: '', body: '' }]));
    expect({ ...result }).toStrictEqual({});
  });

  it('refuses a part whose Content-Disposition cannot be parsed, naming it', async () => {
    const body = multipart([
      { name: 'a', body: '1' },
      { headers: ['Content-Disposition: form-data; name="f"; filename="say "hi".txt"'], body: 'data' },
    ]);
    const error = await rejection(body);
    expect([error.code, error.status]).toEqual(['CLOUDFN_BAD_MULTIPART', 400]);
    expect(error.message).toContain('part 2');
    expect(error.message).toContain('say \\"hi\\".txt');
    expect(error.message).toContain('%22');
  });

  it('refuses a part of another disposition than form-data', async () => {
    const error = await rejection(multipart([{ headers: ['Content-Disposition: attachment; name="a"'], body: '1' }]));
    expect(error.code).toBe('CLOUDFN_BAD_MULTIPART');
    expect(error.message).toContain('attachment');
  });

  it.each(['base64', 'quoted-printable', 'x-custom'])('refuses Content-Transfer-Encoding: %s', async (encoding) => {
    const error = await rejection(
      multipart([
        { name: 'f', filename: 'a.bin', headers: [`Content-Transfer-Encoding: ${encoding}`], body: 'aGVsbG8=' },
      ]),
    );
    expect([error.code, error.status]).toEqual(['CLOUDFN_BAD_MULTIPART', 400]);
    expect(error.message).toContain(encoding);
    expect(error.message).toContain('RFC 7578');
  });

  it.each(['binary', '8bit', '7BIT'])(
    'accepts Content-Transfer-Encoding: %s, which changes nothing',
    async (encoding) => {
      const result = await parse(
        multipart([{ name: 'f', filename: 'a.bin', headers: [`Content-Transfer-Encoding: ${encoding}`], body: 'raw' }]),
      );
      expect(result['f']).toStrictEqual(file('a.bin', 'raw', 'text/plain'));
    },
  );

  it('decodes %22, %0D and %0A in names and file names as WHATWG formData() does, nothing else', async () => {
    const result = await parse(
      multipart([
        { name: 'say%22hi%22', filename: 'a%22b%0D%0A.txt', body: 'x' },
        { name: 'pct%41', body: 'y' },
      ]),
    );
    expect((result['say"hi"'] as UploadFile).name).toBe('a"b\r\n.txt');
    expect(result['pct%41']).toBe('y');
  });
});
