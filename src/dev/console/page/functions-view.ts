/**
 * The functions column and the banners above the editor: each function with its state (compiled
 * or failing, its version, a TS flag when its file has type errors), the selected one's compile
 * error, and the type checker's errors.
 */
import { byId, h, replace } from './dom.js';
import type { TypecheckEvent } from '../protocol.js';
import type { ConsoleStore } from './store.js';

/**
 * Draws the function list; a click selects a function.
 * @example renderFunctions(store, (name) => select(name))
 */
export function renderFunctions(store: ConsoleStore, select: (name: string) => void): void {
  const { functions, selected, typeErrors } = store;
  const list = byId('functions');
  if (functions.length === 0) {
    replace(list, h('li', { class: 'muted empty' }, 'No functions yet: add functions/hello.ts'));
    return;
  }
  replace(
    list,
    ...functions.map((fn) =>
      h(
        'li',
        {},
        h(
          'button',
          {
            class: `fn${fn.name === selected ? ' active' : ''}${fn.status === 'error' ? ' failing' : ''}`,
            'data-fn': fn.name,
            onclick: () => select(fn.name),
          },
          h('span', { class: `status-dot ${fn.status}`, title: fn.status === 'ok' ? 'compiled' : 'failing' }),
          h('span', { class: 'fn-name' }, fn.name),
          h('span', { class: 'fn-meta', title: `${fn.file}, built in ${fn.buildMs} ms` }, `v${fn.version}`),
          ...(typeErrors.some((d) => d.file === fn.file)
            ? [h('span', { class: 'type-flag', title: 'this file has type errors' }, 'TS')]
            : []),
        ),
      ),
    ),
  );
}

/** Shows the selected function's compile or load error, or hides the box. */
export function renderFunctionError(store: ConsoleStore): void {
  const box = byId('function-error');
  const fn = store.functions.find((f) => f.name === store.selected);
  if (fn?.status !== 'error') {
    box.hidden = true;
    replace(box);
    return;
  }
  box.hidden = false;
  replace(
    box,
    h('h2', {}, `${fn.file} does not compile or load`),
    h('pre', { class: 'code' }, fn.error ?? ''),
    h('p', { class: 'hint' }, 'Fix the file and save: the function reloads by itself.'),
  );
}

/**
 * Keeps the type checker's errors and shows them as a banner above the editor; the functions
 * with errors are marked.
 */
export function renderTypeErrors(store: ConsoleStore, info: TypecheckEvent, select: (name: string) => void): void {
  if (info.state === 'checking') return;
  store.typeErrors = info.diagnostics;
  const typeErrors = store.typeErrors;
  const box = byId('type-errors');
  box.hidden = typeErrors.length === 0;
  if (typeErrors.length === 0) {
    replace(box);
  } else {
    const lines = typeErrors.map(
      (d) => `${d.file}:${d.line}:${d.column}: ${d.message} ${d.code}\n  ${d.line} | ${d.lineText}`,
    );
    replace(
      box,
      h('h2', {}, `${typeErrors.length} type error${typeErrors.length === 1 ? '' : 's'}`),
      h('pre', { class: 'code', id: 'type-errors-list' }, lines.join('\n')),
      h(
        'p',
        { class: 'hint' },
        'The functions still run (esbuild does not check types); cloudfn build refuses them. Fix and save: this clears by itself.',
      ),
    );
  }
  renderFunctions(store, select);
}
