/**
 * The box under the editor for curl: the current request as a command (selected, and copied
 * when the browser allows it), or a box to paste a command into that fills the editor.
 */
import { parseCurl } from './curl.js';
import type { Draft } from './draft.js';
import { h, replace } from './dom.js';

export class CurlPanel {
  readonly #root: HTMLElement;
  readonly #fill: (draft: Draft) => void;

  /** `fill` puts a parsed draft in the editor. */
  constructor(root: HTMLElement, fill: (draft: Draft) => void) {
    this.#root = root;
    this.#fill = fill;
  }

  /** Shows `command` and copies it to the clipboard. */
  showCommand(command: string): void {
    const area = h('textarea', { id: 'curl-text', readonly: true, rows: 4, spellcheck: 'false', value: command });
    const note = h('span', { class: 'hint', id: 'curl-note' }, 'Select and copy (Ctrl+C).');
    this.#show('Copy as curl', area, h('div', { class: 'curl-actions' }, note, this.#close()));
    area.select();
    // The clipboard needs a secure context (localhost is one) and the page's focus.
    navigator.clipboard?.writeText(command).then(
      () => (note.textContent = 'Copied to the clipboard.'),
      () => undefined,
    );
  }

  /** Shows the paste box; with `text`, reads it at once (a command pasted into the path box). */
  showPaste(text = ''): void {
    const area = h('textarea', {
      id: 'curl-input',
      rows: 4,
      spellcheck: 'false',
      placeholder:
        'curl -X POST http://127.0.0.1:8000/hello -H \'content-type: application/json\' -d \'{"name":"ann"}\'',
      value: text,
    });
    const problem = h('p', { class: 'hint problem', id: 'curl-problem' });
    const apply = (): void => {
      try {
        this.#fill(parseCurl(area.value));
        this.hide();
      } catch (error) {
        problem.textContent = (error as Error).message;
      }
    };
    const button = h('button', { class: 'primary', id: 'curl-apply', onclick: apply }, 'Fill the editor');
    this.#show('Paste a curl command', area, problem, h('div', { class: 'curl-actions' }, button, this.#close()));
    if (text === '') area.focus();
    else apply();
  }

  hide(): void {
    this.#root.hidden = true;
    replace(this.#root);
  }

  #close(): HTMLElement {
    return h('button', { class: 'link', id: 'curl-close', onclick: () => this.hide() }, 'close');
  }

  #show(title: string, ...children: HTMLElement[]): void {
    this.#root.hidden = false;
    replace(this.#root, h('h2', {}, title), ...children);
  }
}
