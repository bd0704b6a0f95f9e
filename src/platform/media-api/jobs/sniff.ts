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
  const buffer = Buffer.alloc(HEAD_BYTES);
  let head: Buffer;
  try {
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    head = buffer.subarray(0, bytesRead);
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

/** An MPEG transport stream is 188-byte packets, each opening with the sync byte 0x47 (ISO/IEC 13818-1 §2.4.3.2). */
const TS_PACKET = 188;
const TS_SYNC = 0x47;
/**
 * Packets whose sync byte must be in place. One 0x47 alone is any file starting with "G" (a GIF,
 * a text file); the chance that five bytes 188 apart are all 0x47 by accident is tiny.
 */
const TS_PACKETS_CHECKED = 5;
const HEAD_BYTES = TS_PACKET * TS_PACKETS_CHECKED;

function formatOf(head: Buffer): string | undefined {
  if (head.length < 12) return undefined;
  if (head.toString('latin1', 4, 8) === 'ftyp') return 'mp4';
  if (head.readUInt32BE(0) === 0x1a45dfa3) return 'matroska';
  if (head.toString('latin1', 0, 3) === 'FLV') return 'flv';
  if (head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'AVI ') return 'avi';
  if (isTransportStream(head)) return 'mpegts';
  return undefined;
}

/** True when the head holds `TS_PACKETS_CHECKED` whole packets, each starting with the sync byte. */
function isTransportStream(head: Buffer): boolean {
  if (head.length < HEAD_BYTES) return false;
  for (let packet = 0; packet < TS_PACKETS_CHECKED; packet++) if (head[packet * TS_PACKET] !== TS_SYNC) return false;
  return true;
}
