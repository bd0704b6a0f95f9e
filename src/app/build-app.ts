/**
 * `cloudfn build` at an app root: every service built by its own `cloudfn build` (one process
 * each, one after the other, with the flags given), each into its own output folder, then one
 * table of the app: service, output, files, bytes, result. A service that fails does not stop
 * the others; its output is shown under the table.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppRoot } from './app-root.js';

/** One service's build. */
export interface ServiceBuild {
  readonly service: string;
  /** The service's folder, absolute. */
  readonly dir: string;
  /** The output folder, absolute. */
  readonly outdir: string;
  readonly files: number;
  readonly bytes: number;
  readonly ok: boolean;
  /** What its `cloudfn build` printed (kept for a failure). */
  readonly output: string;
  readonly ms: number;
}

/** Options of `buildApp`. */
export interface BuildAppOptions {
  /** The flags each service's `cloudfn build` gets (`--target`, `--check`, `--minify`, …). */
  readonly args: readonly string[];
  /** The output folder relative to each service. @default 'dist' */
  readonly outdir?: string;
  /** The CLI each build runs. @default this package's cloudfn CLI */
  readonly cli?: string;
  /** Called as each service starts building. */
  readonly onStart?: (service: string) => void;
}

function sizeOf(dir: string): { files: number; bytes: number } {
  if (!existsSync(dir)) return { files: 0, bytes: 0 };
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) {
      files++;
      bytes += statSync(join(entry.parentPath, entry.name)).size;
    }
  return { files, bytes };
}

function runBuild(cli: string, dir: string, args: readonly string[]): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, 'build', dir, ...args], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (error) => resolve({ ok: false, output: error.message }));
    child.once('close', (code) => resolve({ ok: code === 0, output }));
  });
}

/**
 * Builds every service of `app`.
 * @example const builds = await buildApp(findAppRoot(cwd)!, { args: ['--check'] }); console.log(formatAppBuild(app, builds));
 */
export async function buildApp(app: AppRoot, options: BuildAppOptions): Promise<ServiceBuild[]> {
  const cli = options.cli ?? fileURLToPath(new URL('../cli/index.js', import.meta.url));
  const builds: ServiceBuild[] = [];
  for (const service of app.services) {
    options.onStart?.(service.name);
    const started = Date.now();
    const { ok, output } = await runBuild(cli, service.dir, options.args);
    const outdir = join(service.dir, options.outdir ?? 'dist');
    builds.push({
      service: service.name,
      dir: service.dir,
      outdir,
      ...sizeOf(outdir),
      ok,
      output,
      ms: Date.now() - started,
    });
  }
  return builds;
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

/**
 * The one table, then the output of each service that failed.
 * @example formatAppBuild(app, builds)
 */
export function formatAppBuild(app: AppRoot, builds: readonly ServiceBuild[]): string {
  const rows = [
    ['service', 'output', 'files', 'size', 'time', 'result'],
    ...builds.map((b) => [
      b.service,
      relative(app.root, b.outdir),
      String(b.files),
      kb(b.bytes),
      `${(b.ms / 1000).toFixed(1)} s`,
      b.ok ? 'ok' : 'FAILED',
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const table = rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
  const failures = builds
    .filter((b) => !b.ok)
    .map((b) => `\n${b.service} (cloudfn build in ${relative(app.root, b.dir)}):\n${b.output.trimEnd()}\n`)
    .join('');
  const failed = builds.filter((b) => !b.ok).length;
  return `${table}\n${failures}\n${failed === 0 ? `built ${builds.length} services` : `${failed} of ${builds.length} services failed`}\n`;
}
