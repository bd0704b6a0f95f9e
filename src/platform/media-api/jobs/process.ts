/**
 * `runProcess`: runs a program without a shell and collects its exit code, stdout and the
 * tail of stderr; ffmpeg, ffprobe and the sample video go through it.
 */
import { spawn } from 'node:child_process';

/** The outcome of a finished child process. */
export interface ProcessResult {
  code: number | null;
  stdout: string;
  /** The last 4 KiB of stderr: enough for ffmpeg's error, without its whole log. */
  stderr: string;
}

/**
 * Runs a program without a shell (arguments are never parsed, so file names with spaces or
 * quotes are safe) and collects its output. Aborting `signal` kills it.
 * @example const { code, stdout } = await runProcess('ffprobe', ['-version'])
 */
export function runProcess(command: string, args: readonly string[], signal?: AbortSignal): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], signal });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4096);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
