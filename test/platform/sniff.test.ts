/**
 * `sniffVideo`, the emulator's stand-in for ffprobe: which first bytes it takes for a video
 * container, and that a file merely starting with "G" is not an MPEG transport stream.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { sniffVideo } from '../../src/platform/media-api/jobs/sniff.js';
import { hasFfmpeg, tempDir } from './helpers.js';

/** `count` transport-stream packets of 188 bytes, each with the sync byte 0x47 first. */
function tsPackets(count: number): Buffer {
  const bytes = Buffer.alloc(188 * count, 0xff);
  for (let i = 0; i < count; i++) bytes[i * 188] = 0x47;
  return bytes;
}

describe('sniffVideo', () => {
  let tmp: { dir: string; remove(): void } | undefined;
  afterEach(() => {
    tmp?.remove();
    tmp = undefined;
  });

  async function sniff(bytes: Buffer | string): Promise<string> {
    tmp ??= tempDir();
    const file = join(tmp.dir, 'upload');
    writeFileSync(file, bytes);
    try {
      return (await sniffVideo(file)).format;
    } catch (error) {
      return (error as Error).message;
    }
  }

  test.each([
    ['an MP4', Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypisom'), Buffer.alloc(32)]), 'mp4'],
    ['a Matroska file', Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(32)]), 'matroska'],
    ['an FLV', Buffer.concat([Buffer.from('FLV\x01'), Buffer.alloc(32)]), 'flv'],
    ['an AVI', Buffer.concat([Buffer.from('RIFF\0\0\0\0AVI LIST'), Buffer.alloc(32)]), 'avi'],
    ['five transport-stream packets', tsPackets(5), 'mpegts'],
  ])('recognises %s', async (_name, bytes, format) => {
    expect(await sniff(bytes)).toBe(format);
  });

  test.each([
    ['a GIF', Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(2000, 0x20)])],
    ['a text file starting with G', 'Good morning, this is not a video.\n'.repeat(40)],
    ['a single transport-stream packet', tsPackets(1)],
    ['packets whose third sync byte is wrong', Buffer.from(tsPackets(6).fill(0x00, 376, 377))],
    ['an empty file', Buffer.alloc(0)],
  ])('refuses %s as not a video', async (_name, bytes) => {
    expect(await sniff(bytes)).toMatch(/^not a video: the file does not start like/);
  });

  test.skipIf(!hasFfmpeg)('recognises a real transport stream written by ffmpeg', async () => {
    const ts = execFileSync(
      'ffmpeg',
      ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=32x32:rate=5', '-t', '1', '-f', 'mpegts', 'pipe:1'],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    expect(await sniff(ts)).toBe('mpegts');
  });
});
