/**
 * The database panel's JSON editor of one document: a textarea, checked as JSON (an object,
 * dates as `{"$date": …}`) before it is sent, with the server's refusal shown beside it; and the
 * panel's calls to the database API (platform/sdk/database/console-api.ts).
 */
import { API } from './api.js';
import { h } from './dom.js';

/** A call to the database API; throws the server's message when it refuses. */
export async function databaseCall(method: string, path: string, body?: string): Promise<unknown> {
  const res = await fetch(`${API}/database${path}`, {
    method,
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
  });
  const text = await res.text();
  const json = text === '' ? undefined : (JSON.parse(text) as { error?: { message?: string } });
  if (!res.ok) throw new Error(json?.error?.message ?? `${method} ${path} answered ${res.status}`);
  return json;
}

/**
 * What the editor refuses before sending: not JSON, or not an object.
 * @example problemOf('[1]') // 'a document is a JSON object, got an array'
 */
export function problemOf(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `a document is a JSON object, got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`;
  return undefined;
}

/**
 * An editor of `initial`; `save` sends the text (and throws the refusal to show), `done` closes it.
 * @example list.append(documentEditor('{}', (text) => databaseCall('POST', '/collections/todos', text), close))
 */
export function documentEditor(
  initial: string,
  save: (text: string) => Promise<unknown>,
  done: () => void,
): HTMLElement {
  const area = h('textarea', {
    class: 'db-json',
    rows: Math.min(16, initial.split('\n').length + 1),
    spellcheck: 'false',
  });
  area.value = initial;
  const problem = h('div', { class: 'problem db-problem', role: 'alert' });
  const submit = async (): Promise<void> => {
    const found = problemOf(area.value);
    problem.textContent = found ?? '';
    if (found !== undefined) return;
    try {
      await save(area.value);
      done();
    } catch (error) {
      problem.textContent = (error as Error).message;
    }
  };
  return h(
    'div',
    { class: 'db-editor' },
    area,
    problem,
    h('button', { class: 'db-save', text: 'Save', onclick: () => void submit() }),
    h('button', { class: 'link db-cancel', text: 'Cancel', onclick: done }),
  );
}
