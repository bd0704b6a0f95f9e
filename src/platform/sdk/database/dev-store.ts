/**
 * Which store a command works on, and the store `cloudfn dev` starts with: the data folder by
 * the stand-in's own rule (CLOUDFN_PLATFORM_DATA, else `<root>/.cloudfn/platform`), a throw-away
 * folder for `--ephemeral`, and the `--seed` file written into it before any function loads.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dataHomeFor } from '../../../app/app-root.js';
import { PLATFORM_ENV_VARS } from '../../media-api/platform-options.js';
import { importStore, parseDump, type StoreChange, type StoreDump } from './dump.js';
import { platformError } from '../../errors.js';

/**
 * The data folder of the project at `root`: CLOUDFN_PLATFORM_DATA (relative to the working
 * folder, as the stand-in reads it), else `platform/` of its data home (its app root's
 * `.cloudfn/`, or its own: src/app/app-root.ts), as `cloudfn dev` sets it.
 * @example projectDataDir('.', process.env) // '/srv/app/.cloudfn/platform'
 */
export function projectDataDir(root: string, env: Record<string, string | undefined>): string {
  const given = env[PLATFORM_ENV_VARS.dataDir]?.trim();
  return given ? resolve(given) : join(dataHomeFor(root), 'platform');
}

/** What `cloudfn dev` asks of its store. */
export interface DevStoreOptions {
  root: string;
  /** The environment the dev server will run with (the emulator's, when --platform). */
  env: Record<string, string | undefined>;
  /** A dump file written into the store at start (its collections replaced). @default none */
  seed?: string;
  /** The seed's documents, already read and checked (the file is then not read again). @default read from `seed` */
  seedDump?: StoreDump;
  /** Start from an empty store in a temporary folder, removed by `dispose`. @default false */
  ephemeral?: boolean;
}

/** The store `cloudfn dev` runs with. */
export interface DevStore {
  /** The data folder (the database is `<dataDir>/database/`). */
  dataDir: string;
  /** The variables the dev server must run with (CLOUDFN_PLATFORM_DATA for an ephemeral store). */
  env: Record<string, string>;
  /** What the seed wrote, when there was one. */
  seeded: StoreChange | undefined;
  /** Removes an ephemeral store (synchronous: it runs at process exit); nothing otherwise. */
  dispose(): void;
}

/**
 * Prepares the store of `cloudfn dev`: picks or creates its folder and writes the seed, without
 * calling any function. A bad seed file is refused whole (PLATFORM_DB_BAD_DUMP).
 * @example const store = await prepareDevStore({ root, env: process.env, seed: 'seed.json' });
 */
export async function prepareDevStore(options: DevStoreOptions): Promise<DevStore> {
  let text: string | undefined;
  if (options.seed !== undefined && options.seedDump === undefined) {
    try {
      text = readFileSync(resolve(options.seed), 'utf8');
    } catch (error) {
      throw platformError('PLATFORM_DB_BAD_DUMP', options.seed, `cannot be read (${(error as Error).message})`);
    }
  }
  const dump = options.seedDump ?? (text === undefined ? undefined : parseDump(text, options.seed!));
  const dataDir =
    options.ephemeral === true
      ? mkdtempSync(join(tmpdir(), 'cloudfn-ephemeral-'))
      : projectDataDir(options.root, options.env);
  const dispose = (): void => {
    if (options.ephemeral === true) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const seeded = dump === undefined ? undefined : await importStore(dataDir, dump, { merge: false });
    return {
      dataDir,
      env: options.ephemeral === true ? { [PLATFORM_ENV_VARS.dataDir]: dataDir } : {},
      seeded,
      dispose,
    };
  } catch (error) {
    dispose();
    throw error;
  }
}
