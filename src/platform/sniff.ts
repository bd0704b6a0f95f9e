/**
 * `sniffVideo`: recognises a video container by its first bytes, the stand-in for ffprobe
 * when media is simulated.
 */
import { open } from 'node:fs/promises';
import type { ProbeResult } from './ffmpeg.js';

/**
 * Recognises common video containers by their first bytes. Used only when ffprobe is
 * absent: the emulator then accepts these files with unknown width, height and duration
 * (all 0) and refuses anything else as "not a video".
 * @example const info = await sniffVideo('/tmp/upload'); // { format: 'mp4', ... } or throws
 */
export async function sniffVideo(file: string): Promise<ProbeResult> {
  const handle = await open(file, 'r');
  const head = Buffer.alloc(16);
  try {
    await handle.read(head, 0, 16, 0);
  } finally {
    await handle.close();
  }
  const format = formatOf(head);
  if (format === undefined)
    throw new Error(
      'not a video: the file does not start like an MP4, MKV/WebM, FLV, AVI or MPEG-TS file (ffprobe is absent, so only these are recognised)',
    );
  return { format, fileTypes: ['video'], width: 0, height: 0, duration: 0, bitrate: 0, codec: '' };
}

function formatOf(head: Buffer): string | undefined {
  if (head.toString('latin1', 4, 8) === 'ftyp') return 'mp4';
  if (head.readUInt32BE(0) === 0x1a45dfa3) return 'matroska';
  if (head.toString('latin1', 0, 3) === 'FLV') return 'flv';
  if (head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'AVI ') return 'avi';
  if (head[0] === 0x47) return 'mpegts';
  return undefined;
}
