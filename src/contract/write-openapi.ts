/**
 * `cloudfn build` writes the OpenAPI document beside the bundles (`<outdir>/openapi.json`) and
 * lists it in the build's manifest, so the next build replaces it. A function that cannot be
 * imported at build time (it reads a variable only the deployment sets) leaves a warning, not a
 * failed build: the bundles are what was asked for.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST } from '../build/bundle.js';
import { openApiDocument } from './openapi.js';
import { loadContractProject } from './project.js';

/** The document's file name in the outdir. */
export const OPENAPI_FILE = 'openapi.json';

/**
 * Writes `<outdir>/openapi.json` for the project at `root`; returns a warning when it could not.
 * @example const warning = await writeOpenApiBeside(root, result.outdir)
 */
export async function writeOpenApiBeside(root: string, outdir: string): Promise<string | undefined> {
  let text: string;
  try {
    const project = await loadContractProject(root);
    const document = await openApiDocument(project.functions, {
      root,
      ...(project.title === undefined ? {} : { title: project.title }),
      ...(project.version === undefined ? {} : { version: project.version }),
    });
    text = `${JSON.stringify(document, null, 2)}\n`;
  } catch (error) {
    return `${OPENAPI_FILE} was not written: ${(error as Error).message.split('\n')[0]} (cloudfn openapi shows the whole error)`;
  }
  writeFileSync(join(outdir, OPENAPI_FILE), text);
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
