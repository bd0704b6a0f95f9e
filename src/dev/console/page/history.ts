/** Recent requests, kept in localStorage so they survive a reload of the page or the server. */
import type { Draft } from './draft.js';

export interface HistoryEntry {
  id: string;
  at: number;
  draft: Draft;
  status?: number;
  durationMs?: number;
  logid?: string;
}

const KEY = 'cloudfn.console.history';
const MAX_ENTRIES = 30;
/** localStorage holds about 5 MB per origin; files beyond this are dropped from old entries. */
const MAX_BYTES = 2_000_000;

export function loadHistory(): HistoryEntry[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(parsed) ? (parsed as HistoryEntry[]) : [];
  } catch {
    return [];
  }
}

function save(entries: HistoryEntry[]): void {
  let text = JSON.stringify(entries);
  // Drop the oldest entries' files first, then the oldest entries, until it fits.
  for (let i = entries.length - 1; text.length > MAX_BYTES && i >= 0; i--) {
    const draft = entries[i]!.draft;
    draft.binaryFile = undefined;
    for (const part of draft.parts) part.file = undefined;
    text = JSON.stringify(entries);
  }
  while (text.length > MAX_BYTES && entries.length > 1) {
    entries.pop();
    text = JSON.stringify(entries);
  }
  try {
    localStorage.setItem(KEY, text);
  } catch {
    // Storage full or disabled: the history lives for this page only.
  }
}

/** Adds a request at the top and returns the new list. */
export function remember(entries: HistoryEntry[], entry: HistoryEntry): HistoryEntry[] {
  const next = [entry, ...entries.filter((e) => e.id !== entry.id)].slice(0, MAX_ENTRIES);
  save(next);
  return next;
}

/** Records the answer of an entry already in the list. */
export function settle(entries: HistoryEntry[], id: string, status: number, durationMs: number): HistoryEntry[] {
  const next = entries.map((e) => (e.id === id ? { ...e, status, durationMs } : e));
  save(next);
  return next;
}

export function clearHistory(): HistoryEntry[] {
  save([]);
  return [];
}
