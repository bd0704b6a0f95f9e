/**
 * Filtering the log lines shown: a lowest level (debug, info, warn, error) and a text that a
 * line must contain (case-insensitive, anywhere in what the line shows: function, message,
 * fields, stack).
 */
import type { ConsoleLogRecord } from '../protocol.js';
import { h, replace } from './dom.js';

const RANK: Record<ConsoleLogRecord['level'], number> = { debug: 0, log: 1, info: 1, warn: 2, error: 3 };

export class LogFilter {
  #level: ConsoleLogRecord['level'] = 'debug';
  #text = '';
  readonly #count: HTMLElement;

  /** Draws the controls into `root`; `changed` re-applies the filter. */
  constructor(root: HTMLElement, changed: () => void) {
    const level = h(
      'select',
      {
        id: 'log-level',
        'aria-label': 'lowest level shown',
        onchange: () => {
          this.#level = level.value as ConsoleLogRecord['level'];
          changed();
        },
      },
      h('option', { value: 'debug' }, 'all levels'),
      h('option', { value: 'info' }, 'info and up'),
      h('option', { value: 'warn' }, 'warn and error'),
      h('option', { value: 'error' }, 'error'),
    );
    const text = h('input', {
      id: 'log-text',
      type: 'search',
      placeholder: 'filter lines',
      'aria-label': 'text the lines must contain',
      spellcheck: 'false',
      oninput: () => {
        this.#text = text.value.trim().toLowerCase();
        changed();
      },
    });
    this.#count = h('span', { class: 'muted', id: 'logs-count' });
    replace(root, level, text, this.#count);
  }

  /** Whether a line is shown: its record's level and its text as shown. */
  matches(record: ConsoleLogRecord, line: HTMLElement): boolean {
    if ((RANK[record.level] ?? 1) < RANK[this.#level]) return false;
    return this.#text === '' || (line.textContent ?? '').toLowerCase().includes(this.#text);
  }

  /** Hides the lines of `list` (rendered from `records`, in order) that do not match. */
  apply(list: HTMLElement, records: readonly ConsoleLogRecord[]): void {
    let shown = 0;
    records.forEach((record, i) => {
      const line = list.children[i] as HTMLElement | undefined;
      if (line === undefined) return;
      line.hidden = !this.matches(record, line);
      if (!line.hidden) shown++;
    });
    const active = this.#text !== '' || this.#level !== 'debug';
    this.#count.textContent = active && records.length > 0 ? `${shown} of ${records.length}` : '';
  }
}
