/**
 * `writeFileAtomic`, through which the state, the app key registry and the platform key pair
 * are written: a flushed temporary file renamed over the target.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';

/**
 * Writes `file` so that a reader (or a restart after a crash) sees either the old content
 * or the new, never half of it: the data goes to a temporary file beside it, is flushed to
 * disk, and only then renamed over the target (rename is atomic within one file system).
 * @example await writeFileAtomic('/data/state.json', JSON.stringify(state))
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temporary, 'w', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
