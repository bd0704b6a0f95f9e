/**
 * What `cloudfn build` reads by importing the functions: the OpenAPI document, written beside
 * the bundles (`<outdir>/openapi.json`) and listed in the build's manifest, so the next build
 * replaces it; and the timer triggers (`config.schedule`), written into the manifest as
 * `timers` (timers.ts). The functions are imported in a child process (`cloudfn openapi`) with a
 * time limit: a module that opens a connection or a timer when imported cannot keep the build
 * from ending. A function that cannot be imported at build time (it reads a variable only the
 * deployment sets) leaves a warning, not a failed build: the bundles are what was asked for.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownFile } from '../own-package.js';
import { MANIFEST } from '../build/outdir.js';
import { loadProjectConfig } from '../build/project-config.js';
import { openApiDocument } from './openapi.js';
import { loadContractProject } from './project.js';
import { type TimerTrigger, timerTriggers } from './timers.js';

/** The document's file name in the outdir. */
export const OPENAPI_FILE = 'openapi.json';

/** How long the child may take to import the functions. */
const TIME_LIMIT_MS = 120_000;

/** Writes the document and the timers in this process (cloudfn run from its TypeScript sources, in its own tests). */
async function writeHere(root: string, file: string, timersFile: string): Promise<void> {
  const project = await loadContractProject(root);
  const document = await openApiDocument(project.functions, {
    root,
    ...(project.title === undefined ? {} : { title: project.title }),
    ...(project.version === undefined ? {} : { version: project.version }),
  });
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  writeFileSync(timersFile, JSON.stringify(timerTriggers(project.functions, await loadProjectConfig(root))));
}

/** Runs `cloudfn openapi <root> --out <file> --timers <file>` in a child process; rejects with its first error line. */
function writeInChild(cli: string, root: string, file: string, timersFile: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [cli, 'openapi', root, '--out', file, '--timers', timersFile],
      { timeout: TIME_LIMIT_MS, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 },
      (error, _stdout, stderr) => {
        if (error === null) return resolve();
        const line = stderr.split('\n').find((text) => text.trim() !== '');
        reject(
          new Error(
            error.killed ? `importing the functions took over ${TIME_LIMIT_MS / 1000} s` : (line ?? error.message),
          ),
        );
      },
    );
  });
}

/** What `readFunctionFacts` found, or the warning that says why it could not. */
export interface FunctionFacts {
  /** The timer triggers, when the functions could be imported. */
  timers: TimerTrigger[] | undefined;
  warning: string | undefined;
}

/**
 * Imports the functions of the project at `root` (in a child process), writes
 * `<outdir>/openapi.json` when `openapi` is set, and adds the timer triggers to the manifest in
 * `outdir` (`timers`, an empty list when there are none).
 * @example const { timers, warning } = await readFunctionFacts(root, result.outdir, { openapi: true })
 */
export async function readFunctionFacts(
  root: string,
  outdir: string,
  options: { openapi: boolean },
): Promise<FunctionFacts> {
  const scratch = mkdtempSync(join(tmpdir(), 'cloudfn-facts-'));
  const file = options.openapi ? join(outdir, OPENAPI_FILE) : join(scratch, OPENAPI_FILE);
  const timersFile = join(scratch, 'timers.json');
  const cli = ownFile('src/cli/index');
  let timers: TimerTrigger[];
  try {
    if (cli.endsWith('.ts')) await writeHere(root, file, timersFile);
    else await writeInChild(cli, root, file, timersFile);
    timers = JSON.parse(readFileSync(timersFile, 'utf8')) as TimerTrigger[];
  } catch (error) {
    const detail = (error as Error).message.replace(/^cloudfn: /, '').split('\n')[0];
    const what = options.openapi ? `${OPENAPI_FILE} and the timer triggers were` : 'the timer triggers were';
    return { timers: undefined, warning: `${what} not written: ${detail} (cloudfn openapi shows the whole error)` };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const manifest = join(outdir, MANIFEST);
  if (existsSync(manifest)) {
    const written = JSON.parse(readFileSync(manifest, 'utf8')) as { files?: string[]; timers?: TimerTrigger[] };
    if (options.openapi && !(written.files ?? []).includes(OPENAPI_FILE))
      written.files = [...(written.files ?? []), OPENAPI_FILE];
    written.timers = timers;
    writeFileSync(manifest, `${JSON.stringify(written, null, 2)}\n`);
  }
  return { timers, warning: undefined };
}
