/**
 * `cloudfn build` writes the OpenAPI document beside the bundles (`<outdir>/openapi.json`) and
 * lists it in the build's manifest, so the next build replaces it. The functions are imported
 * to read their schemas, in a child process (`cloudfn openapi`) with a time limit: a module
 * that opens a connection or a timer when imported cannot keep the build from ending. A
 * function that cannot be imported at build time (it reads a variable only the deployment
 * sets) leaves a warning, not a failed build: the bundles are what was asked for.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownFile } from '../own-package.js';
import { MANIFEST } from '../build/bundle.js';
import { openApiDocument } from './openapi.js';
import { loadContractProject } from './project.js';

/** The document's file name in the outdir. */
export const OPENAPI_FILE = 'openapi.json';

/** How long the child may take to import the functions. */
const TIME_LIMIT_MS = 120_000;

/** Writes the document in this process (cloudfn run from its TypeScript sources, in its own tests). */
async function writeHere(root: string, file: string): Promise<void> {
  const project = await loadContractProject(root);
  const document = await openApiDocument(project.functions, {
    root,
    ...(project.title === undefined ? {} : { title: project.title }),
    ...(project.version === undefined ? {} : { version: project.version }),
  });
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
}

/** Runs `cloudfn openapi <root> --out <file>` in a child process; rejects with its first error line. */
function writeInChild(cli: string, root: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [cli, 'openapi', root, '--out', file],
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

/**
 * Writes `<outdir>/openapi.json` for the project at `root`; returns a warning when it could not.
 * @example const warning = await writeOpenApiBeside(root, result.outdir)
 */
export async function writeOpenApiBeside(root: string, outdir: string): Promise<string | undefined> {
  const file = join(outdir, OPENAPI_FILE);
  const cli = ownFile('src/cli/index');
  try {
    if (cli.endsWith('.ts')) await writeHere(root, file);
    else await writeInChild(cli, root, file);
  } catch (error) {
    return `${OPENAPI_FILE} was not written: ${(error as Error).message.replace(/^cloudfn: /, '').split('\n')[0]} (cloudfn openapi shows the whole error)`;
  }
  const manifest = join(outdir, MANIFEST);
  if (existsSync(manifest)) {
    const written = JSON.parse(readFileSync(manifest, 'utf8')) as { files?: string[] };
    if (!(written.files ?? []).includes(OPENAPI_FILE)) {
      written.files = [...(written.files ?? []), OPENAPI_FILE];
      writeFileSync(manifest, `${JSON.stringify(written, null, 2)}\n`);
    }
  }
  return undefined;
}
