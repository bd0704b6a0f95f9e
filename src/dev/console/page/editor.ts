/** The request editor: method, path, query, headers and a body for each content type. */
import { h, replace } from './dom.js';
import { emptyRow, parseHex, pathText, pickFile, setPathText, type BodyType, type Draft, type Row } from './draft.js';
import { formatBytes } from './view.js';

type Tab = 'query' | 'body' | 'headers';

const BODY_TYPES: [BodyType, string][] = [
  ['json', 'JSON'],
  ['urlencoded', 'Form (urlencoded)'],
  ['text', 'Text'],
  ['binary', 'Binary'],
  ['multipart', 'Multipart'],
];

export interface EditorHandlers {
  send(): void;
  /** Cancels the request in flight. */
  cancel(): void;
  change(draft: Draft): void;
  /** Shows the draft as a curl command, and copies it. */
  copyCurl(): void;
  /** Opens the paste box; with `text`, a curl command pasted into the path box. */
  pasteCurl(text?: string): void;
}

export class Editor {
  draft: Draft;
  #tab: Tab = 'query';
  readonly #handlers: EditorHandlers;
  readonly #method: HTMLSelectElement;
  readonly #path: HTMLInputElement;
  readonly #tabs: HTMLElement;
  readonly #pane: HTMLElement;
  readonly #send: HTMLButtonElement;
  readonly #cancel: HTMLButtonElement;

  constructor(root: HTMLElement, draft: Draft, handlers: EditorHandlers) {
    this.draft = draft;
    this.#handlers = handlers;
    this.#method = h(
      'select',
      { id: 'method', 'aria-label': 'method', onchange: () => this.#setMethod(this.#method.value as Draft['method']) },
      h('option', {}, 'GET'),
      h('option', {}, 'POST'),
    );
    this.#path = h('input', {
      id: 'path',
      'aria-label': 'path',
      spellcheck: 'false',
      autocomplete: 'off',
      // The path box and the query rows are one thing: typing `?a=1` here fills the rows.
      oninput: () => {
        this.#edit(() => setPathText(this.draft, this.#path.value));
        this.#render();
      },
      onpaste: (event: Event) => {
        const text = (event as ClipboardEvent).clipboardData?.getData('text') ?? '';
        if (!/^\s*curl\s/.test(text)) return;
        event.preventDefault();
        handlers.pasteCurl(text);
      },
    });
    this.#send = h(
      'button',
      { id: 'send', class: 'primary', onclick: () => handlers.send(), title: 'Send (Ctrl+Enter)' },
      'Send',
    );
    this.#cancel = h(
      'button',
      { id: 'cancel', class: 'secondary', hidden: true, onclick: () => handlers.cancel(), title: 'Cancel (Esc)' },
      'Cancel',
    );
    const curl = h(
      'div',
      { class: 'segmented curl-buttons' },
      h(
        'button',
        { id: 'copy-curl', title: 'copy this request as a curl command', onclick: () => handlers.copyCurl() },
        'Copy as curl',
      ),
      h(
        'button',
        { id: 'paste-curl', title: 'fill the editor from a curl command', onclick: () => handlers.pasteCurl() },
        'Paste curl',
      ),
    );
    this.#tabs = h('nav', { class: 'tabs', role: 'tablist' });
    this.#pane = h('div', { class: 'pane', id: 'editor-pane' });
    replace(
      root,
      h('div', { class: 'request-bar' }, this.#method, this.#path, this.#send, this.#cancel),
      curl,
      this.#tabs,
      this.#pane,
    );
    root.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        handlers.send();
      } else if (event.key === 'Escape' && !this.#cancel.hidden) {
        handlers.cancel();
      }
    });
    this.set(draft);
  }

  /** Shows Cancel instead of Send while a request is in flight. */
  setBusy(busy: boolean): void {
    this.#send.hidden = busy;
    this.#cancel.hidden = !busy;
  }

  /** Shows another draft (a function picked, a history entry loaded). */
  set(draft: Draft): void {
    this.draft = draft;
    // Drafts from before the path box and rows were synced may hold their query in the path.
    if (draft.path.includes('?')) setPathText(draft, pathText(draft));
    this.#method.value = draft.method;
    this.#path.value = pathText(draft);
    if (draft.method === 'GET' && this.#tab === 'body') this.#tab = 'query';
    // A POST's body is what one edits first (an upload function picked, a draft remembered).
    else if (draft.method === 'POST' && this.#tab === 'query') this.#tab = 'body';
    this.#render();
  }

  #edit(change: () => void): void {
    change();
    // A query row edited: the path box follows (not while typing in it, which would move the caret).
    if (document.activeElement !== this.#path) this.#path.value = pathText(this.draft);
    this.#handlers.change(this.draft);
  }

  #setMethod(method: Draft['method']): void {
    this.#edit(() => (this.draft.method = method));
    this.#tab = method === 'POST' ? 'body' : 'query';
    this.#render();
  }

  #render(): void {
    const tab = (id: Tab, label: string, count?: number) =>
      h(
        'button',
        {
          class: `tab${this.#tab === id ? ' active' : ''}`,
          role: 'tab',
          id: `tab-${id}`,
          onclick: () => {
            this.#tab = id;
            this.#render();
          },
        },
        label,
        count ? h('span', { class: 'count' }, String(count)) : null,
      );
    const count = (rows: Row[]) => rows.filter((r) => r.enabled && r.name !== '').length;
    replace(
      this.#tabs,
      tab('query', 'Query', count(this.draft.query)),
      this.draft.method === 'POST' ? tab('body', 'Body') : null,
      tab('headers', 'Headers', count(this.draft.headers)),
    );
    if (this.#tab === 'query') replace(this.#pane, this.#rows(this.draft.query, 'query', 'value'));
    else if (this.#tab === 'headers')
      replace(
        this.#pane,
        this.#rows(this.draft.headers, 'headers', 'value'),
        h(
          'p',
          { class: 'hint' },
          'Content-Type follows the body type unless set here. The console adds its logid and trigger headers.',
        ),
      );
    else replace(this.#pane, this.#body());
  }

  #body(): HTMLElement {
    const draft = this.draft;
    const select = h(
      'select',
      {
        id: 'body-type',
        'aria-label': 'content type',
        onchange: () => {
          this.#edit(() => {
            draft.bodyType = select.value as BodyType;
          });
          this.#render();
        },
      },
      ...BODY_TYPES.map(([value, label]) => h('option', { value, selected: draft.bodyType === value }, label)),
    );
    let editor: HTMLElement;
    switch (draft.bodyType) {
      case 'json':
        editor = this.#textarea('body-json', draft.json, (v) => (draft.json = v), jsonProblem);
        break;
      case 'text':
        editor = this.#textarea('body-text', draft.text, (v) => (draft.text = v));
        break;
      case 'urlencoded':
        editor = this.#rows(draft.form, 'body-form', 'value');
        break;
      case 'binary':
        editor = this.#binary();
        break;
      case 'multipart':
        editor = this.#rows(draft.parts, 'body-parts', 'value', true);
        break;
    }
    return h('div', { class: 'body-editor' }, h('label', { class: 'inline' }, 'Content type ', select), editor);
  }

  #textarea(
    id: string,
    value: string,
    set: (v: string) => void,
    problem?: (v: string) => string | undefined,
  ): HTMLElement {
    const note = h('p', { class: 'hint problem' });
    const check = (v: string) => (note.textContent = problem?.(v) ?? '');
    const area = h('textarea', {
      id,
      spellcheck: 'false',
      rows: 10,
      value,
      oninput: () => {
        this.#edit(() => set(area.value));
        check(area.value);
      },
    });
    check(value);
    return h('div', {}, area, note);
  }

  #binary(): HTMLElement {
    const draft = this.draft;
    const modes = h(
      'div',
      { class: 'segmented' },
      ...(['hex', 'file'] as const).map((mode) =>
        h(
          'button',
          {
            class: draft.binaryMode === mode ? 'active' : '',
            id: `binary-${mode}`,
            onclick: () => {
              this.#edit(() => {
                draft.binaryMode = mode;
              });
              this.#render();
            },
          },
          mode === 'hex' ? 'Hex' : 'File',
        ),
      ),
    );
    if (draft.binaryMode === 'hex')
      return h(
        'div',
        {},
        modes,
        this.#textarea('body-hex', draft.hex, (v) => (draft.hex = v), hexProblem),
      );
    return h(
      'div',
      {},
      modes,
      this.#fileInput('body-file', draft.binaryFile, (file) => (draft.binaryFile = file)),
    );
  }

  #fileInput(id: string, current: Row['file'], set: (file: Row['file']) => void): HTMLElement {
    const label = h(
      'span',
      { class: 'file-name' },
      current ? `${current.name} (${formatBytes(current.size)})` : 'no file',
    );
    const input = h('input', {
      type: 'file',
      id,
      onchange: () => {
        const file = input.files?.[0];
        if (file === undefined) return;
        void pickFile(file).then((picked) => {
          this.#edit(() => set(picked));
          label.textContent = `${picked.name} (${formatBytes(picked.size)})`;
        });
      },
    });
    return h('span', { class: 'file' }, input, label);
  }

  /** A table of name/value rows; with `parts`, each row may be a file. */
  #rows(rows: Row[], id: string, placeholder: string, parts = false): HTMLElement {
    const body = h('tbody');
    const redraw = () => replace(body, ...rows.map((row, i) => line(row, i)));
    const line = (row: Row, i: number): HTMLElement => {
      const enabled = h('input', {
        type: 'checkbox',
        checked: row.enabled,
        'aria-label': 'send this row',
        onchange: () => this.#edit(() => (row.enabled = enabled.checked)),
      });
      const name = h('input', {
        class: 'name',
        placeholder: 'name',
        spellcheck: 'false',
        value: row.name,
        oninput: () => this.#edit(() => (row.name = name.value)),
      });
      let value: HTMLElement;
      if (parts && row.kind === 'file') {
        value = this.#fileInput(`${id}-file-${i}`, row.file, (file) => (row.file = file));
      } else {
        const input = h('input', {
          class: 'value',
          placeholder,
          spellcheck: 'false',
          value: row.value,
          oninput: () => this.#edit(() => (row.value = input.value)),
        });
        value = input;
      }
      const kind = parts
        ? h(
            'select',
            {
              class: 'kind',
              'aria-label': 'part kind',
              onchange: () => {
                this.#edit(() => {
                  row.kind = kind!.value as 'field' | 'file';
                });
                redraw();
              },
            },
            h('option', { value: 'field', selected: row.kind !== 'file' }, 'text'),
            h('option', { value: 'file', selected: row.kind === 'file' }, 'file'),
          )
        : undefined;
      const remove = h(
        'button',
        {
          class: 'icon',
          title: 'remove',
          'aria-label': 'remove row',
          onclick: () => {
            this.#edit(() => rows.splice(i, 1));
            redraw();
          },
        },
        '×',
      );
      return h(
        'tr',
        {},
        h('td', {}, enabled),
        kind ? h('td', {}, kind) : null,
        h('td', {}, name),
        h('td', { class: 'grow' }, value),
        h('td', {}, remove),
      );
    };
    redraw();
    const add = h(
      'button',
      {
        class: 'add',
        id: `${id}-add`,
        onclick: () => {
          this.#edit(() => rows.push(emptyRow(parts ? 'field' : undefined)));
          redraw();
        },
      },
      '+ add',
    );
    return h('div', { class: 'rows', id }, h('table', {}, body), add);
  }
}

function jsonProblem(text: string): string | undefined {
  if (text.trim() === '') return undefined;
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return `not valid JSON (it is sent as typed): ${(error as Error).message}`;
  }
}

function hexProblem(text: string): string | undefined {
  try {
    parseHex(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
