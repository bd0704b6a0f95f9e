/**
 * The output folder of a build, written all or nothing: the bundles go to a staging folder
 * beside it, and only a build that succeeded replaces the previous build's files with them, by
 * renames. A failed build (a compile error, a missing package) leaves the previous output as it
 * was, or no folder at all. Each target's folder is its own: the function-service build's
 * `function-service/` inside the server build's `dist/` (and the reverse) is never touched by
 * the other, nor does it make the other refuse the folder.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createError } from '../../runtime/errors.js';

/** The file listing what a build wrote, so the next build removes exactly that. */
export const MANIFEST = 'cloudfn-build.json';

/** Staging folders start so; a folder holding one (a build killed mid-way) is still ours. */
const STAGE_PREFIX = '.cloudfn-build-';

/** What the previous build's manifest says it wrote. */
function previousFiles(outdir: string): string[] {
  const manifest = join(outdir, MANIFEST);
  if (!existsSync(manifest)) return [];
  try {
    const files = (JSON.parse(readFileSync(manifest, 'utf8')) as { files?: unknown }).files;
    return Array.isArray(files) ? files.filter((file): file is string => typeof file === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Throws unless `outdir` is missing, empty, or written by cloudfn build: every entry is the
 * previous build's (its manifest), another build's folder (one holding a manifest, as
 * `function-service/` does), or a staging folder.
 * @example checkOutdir('/srv/app/dist')
 */
export function checkOutdir(outdir: string): void {
  if (!existsSync(outdir)) return;
  const listed = new Set([MANIFEST, ...previousFiles(outdir)]);
  const foreign = readdirSync(outdir).filter(
    (entry) => !listed.has(entry) && !entry.startsWith(STAGE_PREFIX) && !existsSync(join(outdir, entry, MANIFEST)),
  );
  if (foreign.length === 0) return;
  throw createError(
    'CLOUDFN_BAD_CONFIG',
    outdir,
    `exists and holds ${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', ...' : ''}, which cloudfn build did not write (no ${MANIFEST} lists them); remove them or pass another --outdir`,
  );
}

/**
 * A build's staging folder for `outdir`: write into `dir`, then `commit()` or `abort()`.
 * @example const stage = new StagedOutdir('/srv/app/dist'); try { build(stage.dir); stage.commit() } finally { stage.abort() }
 */
export class StagedOutdir {
  readonly outdir: string;
  /** Where the build writes; beside outdir, at the same depth, so source maps' relative paths hold. */
  readonly dir: string;
  #done = false;
  constructor(outdir: string) {
    checkOutdir(outdir);
    this.outdir = outdir;
    const parent = dirname(outdir);
    mkdirSync(parent, { recursive: true });
    this.dir = join(parent, `${STAGE_PREFIX}${basename(outdir)}-${process.pid}-${Date.now().toString(36)}`);
    mkdirSync(this.dir);
  }

  /**
   * Replaces the previous build's files in outdir with the staged ones, leaving everything else
   * (another target's folder) in place, and removes the staging folder.
   */
  commit(): void {
    mkdirSync(this.outdir, { recursive: true });
    for (const file of previousFiles(this.outdir)) rmSync(join(this.outdir, file), { recursive: true, force: true });
    for (const entry of readdirSync(this.dir)) {
      const target = join(this.outdir, entry);
      // A nested target's folder of the same name (never listed) is replaced only by a build that wrote one.
      rmSync(target, { recursive: true, force: true });
      renameSync(join(this.dir, entry), target);
    }
    this.#done = true;
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Removes the staging folder of a build that did not commit; the previous output stays. */
  abort(): void {
    if (!this.#done) rmSync(this.dir, { recursive: true, force: true });
  }
}
