/**
 * What the editor holds for each function, kept in localStorage so a function comes back with
 * its last method, body, query and headers after a reload of the page or the server; and the
 * draft of a function not used yet, from what the server says it reads.
 */
import type { FunctionStatus } from '../protocol.js';
import { newDraft, type Draft } from './draft.js';

const KEY = 'cloudfn.console.drafts';
/** Beyond this the drafts are not saved (the history already keeps files, up to 2 MB). */
const MAX_BYTES = 1_000_000;

/** The kept drafts, by function name. */
export function loadDrafts(): Record<string, Draft> {
  try {
    const parsed = JSON.parse(localStorage.getItem(KEY) ?? '{}') as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, Draft>) : {};
  } catch {
    return {};
  }
}

/**
 * Saves the drafts a moment after the last edit, without their files (the history keeps those):
 * cancels the save still `pending` and returns the new one's timer, for the caller to keep.
 * @example this.#saving = saveDrafts(this.drafts, this.#saving)
 */
export function saveDrafts(drafts: Record<string, Draft>, pending: number | undefined): number {
  clearTimeout(pending);
  return window.setTimeout(() => {
    const text = JSON.stringify(drafts, (key, value: unknown) =>
      key === 'file' || key === 'binaryFile' ? undefined : value,
    );
    if (text.length > MAX_BYTES) return;
    try {
      localStorage.setItem(KEY, text);
    } catch {
      // Storage full or disabled: drafts live until the page closes.
    }
  }, 200);
}

/**
 * The draft of a function not used yet: GET, unless the server says it reads a body (its config
 * sets `maxBodySize`: POST with JSON) or multipart (its name starts with `upload` or its config
 * sets a multipart limit: POST with multipart rows). Once used, a function keeps its own.
 * @example firstDraft({ name: 'upload', path: '/upload', input: 'multipart', ... }).method // 'POST'
 */
export function firstDraft(fn: Pick<FunctionStatus, 'path' | 'input'>): Draft {
  const draft = newDraft(fn.path);
  if (fn.input !== 'query') draft.method = 'POST';
  if (fn.input === 'multipart') draft.bodyType = 'multipart';
  return draft;
}
