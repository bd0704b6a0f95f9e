/**
 * ffmpeg and ffprobe for uploads and transcodes: finding them, probing a file into a
 * `ProbeResult`, the three `trans_code_type` templates and transcoding with one of them.
 */
import { runProcess } from './process.js';

/** Paths of the two programs; both come from Debian's `ffmpeg` package. */
export interface FfmpegTools {
  ffmpeg: string;
  ffprobe: string;
}

/**
 * Finds ffmpeg and ffprobe on PATH (or at the given paths); undefined when either is
 * missing, in which case the emulator simulates probing and transcoding.
 * @example const tools = await detectFfmpeg(); if (!tools) console.warn('simulating media');
 */
export async function detectFfmpeg(
  paths: FfmpegTools = { ffmpeg: 'ffmpeg', ffprobe: 'ffprobe' },
): Promise<FfmpegTools | undefined> {
  try {
    const [a, b] = await Promise.all([runProcess(paths.ffmpeg, ['-version']), runProcess(paths.ffprobe, ['-version'])]);
    return a.code === 0 && b.code === 0 ? paths : undefined;
  } catch {
    return undefined;
  }
}

/** What ffprobe tells about a media file, in the units of the platform contract (Media API). */
export interface ProbeResult {
  /** Short container name: `mp4`, `hls`, or ffprobe's first format name. */
  format: string;
  /** `video`, plus `audio` when there is an audio stream. */
  fileTypes: string[];
  width: number;
  height: number;
  /** Seconds. */
  duration: number;
  /** Kbps. */
  bitrate: number;
  /** Video codec as ffprobe names it (`h264`, `hevc` is reported as `h265`). */
  codec: string;
}

interface FfprobeJson {
  streams?: { codec_type?: string; codec_name?: string; width?: number; height?: number }[];
  format?: { format_name?: string; duration?: string; bit_rate?: string; size?: string };
}

/** Names ffprobe gives to still images, which have a "video" stream but are not videos. */
const IMAGE_FORMATS = /(^image2$|_pipe$|^gif$|^apng$|^webp$)/;

/**
 * Reads width, height, duration, bitrate and format of `file` with ffprobe; throws an
 * Error whose message is a job's fail reason when the file is not a video.
 * @example const info = await probeMedia(tools, '/data/media/v1/original.mp4')
 */
export async function probeMedia(tools: FfmpegTools, file: string, signal?: AbortSignal): Promise<ProbeResult> {
  const result = await runProcess(
    tools.ffprobe,
    ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file],
    signal,
  );
  if (result.code !== 0)
    throw new Error(
      `not a video: ffprobe cannot read the file (${result.stderr.trim().split('\n').pop() ?? 'no detail'})`,
    );
  const json = JSON.parse(result.stdout) as FfprobeJson;
  const formatName = json.format?.format_name ?? '';
  const video = json.streams?.find((s) => s.codec_type === 'video');
  const duration = Number(json.format?.duration ?? 0);
  if (video === undefined || IMAGE_FORMATS.test(formatName) || !(duration > 0)) {
    throw new Error(`not a video: the file (${formatName || 'unknown format'}) has no video stream with a duration`);
  }
  const hasAudio = json.streams?.some((s) => s.codec_type === 'audio') === true;
  return {
    format: shortFormat(formatName),
    fileTypes: hasAudio ? ['video', 'audio'] : ['video'],
    width: video.width ?? 0,
    height: video.height ?? 0,
    duration: Math.round(duration * 1000) / 1000,
    bitrate: Math.round(Number(json.format?.bit_rate ?? 0) / 1000),
    codec: video.codec_name === 'hevc' ? 'h265' : (video.codec_name ?? ''),
  };
}

function shortFormat(formatName: string): string {
  if (formatName.split(',').includes('mp4')) return 'mp4';
  if (formatName === 'hls') return 'hls';
  return formatName.split(',')[0] ?? formatName;
}

/** The three templates of `trans_code_type` (platform contract, Media API). */
export interface TranscodeTemplate {
  format: 'mp4' | 'hls';
  codec: 'h264' | 'h265';
  /** The template's nominal definition; a rendition whose height is unknown (simulated media) shows it. */
  definition: string;
}

/** Platform contract, Media API: '3' MP4 720P H264, '4' MP4 720P H265, '5' HLS 720P H264. */
export const TEMPLATES: Readonly<Record<string, TranscodeTemplate>> = {
  '3': { format: 'mp4', codec: 'h264', definition: '720p' },
  '4': { format: 'mp4', codec: 'h265', definition: '720p' },
  '5': { format: 'hls', codec: 'h264', definition: '720p' },
};

/** Name of the entry file a template writes in its folder. */
export function entryFileOf(template: TranscodeTemplate): string {
  return template.format === 'hls' ? 'index.m3u8' : 'video.mp4';
}

/**
 * Transcodes `input` into `outDir` with a template and returns the entry file path.
 * 720P is a ceiling: the height becomes min(720, source height), never upscaled, so a small
 * test clip stays small and fast. `preset` is x264/x265's speed preset.
 * @example await transcode(tools, 'in.mp4', 'out/3', TEMPLATES['3']!, { preset: 'ultrafast', hasAudio: false })
 */
export async function transcode(
  tools: FfmpegTools,
  input: string,
  outDir: string,
  template: TranscodeTemplate,
  options: { preset: string; hasAudio: boolean; signal?: AbortSignal },
): Promise<string> {
  const entry = `${outDir}/${entryFileOf(template)}`;
  const video =
    template.codec === 'h264'
      ? ['-c:v', 'libx264', '-preset', options.preset, '-pix_fmt', 'yuv420p']
      : [
          '-c:v',
          'libx265',
          '-preset',
          options.preset,
          '-pix_fmt',
          'yuv420p',
          '-tag:v',
          'hvc1',
          '-x265-params',
          'log-level=error',
        ];
  const audio = options.hasAudio ? ['-c:a', 'aac', '-b:a', '128k'] : ['-an'];
  const container =
    template.format === 'hls'
      ? [
          '-f',
          'hls',
          '-hls_time',
          '4',
          '-hls_playlist_type',
          'vod',
          '-hls_segment_filename',
          `${outDir}/seg_%03d.ts`,
          entry,
        ]
      : ['-movflags', '+faststart', entry];
  const args = [
    '-v',
    'error',
    '-y',
    '-i',
    input,
    '-vf',
    "scale=-2:'trunc(min(720,ih)/2)*2'",
    ...video,
    ...audio,
    ...container,
  ];
  const result = await runProcess(tools.ffmpeg, args, options.signal);
  if (result.code !== 0)
    throw new Error(
      `ffmpeg failed (exit ${String(result.code)}): ${result.stderr.trim().split('\n').slice(-2).join(' ')}`,
    );
  return entry;
}
