/**
 * The sample video served at `/samples/sample.mp4`, made on first use by ffmpeg; with media
 * simulated (no ffmpeg), a small file that begins like an MP4, which is all simulation reads.
 */
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FfmpegTools } from '../jobs/ffmpeg.js';
import { runProcess } from '../jobs/process.js';

/** Path of the sample video the emulator serves, so a new project has something to upload. */
export const SAMPLE_PATH = '/samples/sample.mp4';

let making: Promise<string> | undefined;

/**
 * Returns the sample video file, making it on first use: a 5-second 640x360 test pattern
 * with a tone, made by ffmpeg; without ffmpeg, a small file that starts like an MP4, enough
 * for the simulated media.
 * @example const file = await sampleVideo(dataDir, tools)
 */
export function sampleVideo(dataDir: string, tools: FfmpegTools | undefined): Promise<string> {
  const file = join(dataDir, 'samples', tools ? 'sample.mp4' : 'sample-simulated.mp4');
  if (existsSync(file)) return Promise.resolve(file);
  making ??= make(file, tools).finally(() => {
    making = undefined;
  });
  return making;
}

async function make(file: string, tools: FfmpegTools | undefined): Promise<string> {
  await mkdir(join(file, '..'), { recursive: true });
  const partial = `${file}.part.mp4`;
  try {
    if (tools) {
      const result = await runProcess(tools.ffmpeg, [
        '-v',
        'error',
        '-y',
        '-f',
        'lavfi',
        '-i',
        'testsrc2=size=640x360:rate=25:duration=5',
        '-f',
        'lavfi',
        '-i',
        'sine=frequency=330:duration=5',
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        '-shortest',
        '-movflags',
        '+faststart',
        partial,
      ]);
      if (result.code !== 0) throw new Error(`ffmpeg could not make the sample video: ${result.stderr.trim()}`);
    } else {
      await writeFile(
        partial,
        Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(8 * 1024, 0)]),
      );
    }
    await rename(partial, file);
  } finally {
    await rm(partial, { force: true });
  }
  return file;
}
