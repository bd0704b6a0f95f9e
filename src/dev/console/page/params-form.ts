/**
 * The form of a function with declared params: one input per field of its params' JSON Schema
 * (read from `${CLOUDFN_PREFIX}/openapi.json`), and the issues of a 400 `CLOUDFN_BAD_PARAMS` shown at
 * their fields. Sending the form writes the values into the editor's draft (a JSON body) and
 * sends it, so the request, its response and its logs are those of any other.
 */
import { PREFIX } from './api.js';
import { h, replace } from './dom.js';
import type { FieldSchema, OpenApiParamsView, ParamsIssue } from '../protocol.js';

export type { FieldSchema };

/** One issue of a refusal: a JSON Pointer into params and the message. */
export type FormIssue = ParamsIssue;

/** What the form does with the values it gathered. */
export interface ParamsFormActions {
  /** Put `params` in the editor as a JSON POST body and send it. */
  send(params: Record<string, unknown>): void;
}

/** The params schema of each function, from the OpenAPI document of the dev server. */
export async function fetchParamsSchemas(): Promise<Map<string, FieldSchema>> {
  const res = await fetch(`${PREFIX}/openapi.json`);
  if (!res.ok) return new Map();
  const doc = (await res.json()) as OpenApiParamsView;
  const out = new Map<string, FieldSchema>();
  for (const item of Object.values(doc.paths)) {
    const post = item.post;
    const name = post?.['x-cloudfn-function'];
    const schema = post?.requestBody?.content?.['application/json']?.schema;
    // Only a declared object of fields makes a form (an undeclared function's schema is `{}`).
    if (name !== undefined && schema?.properties !== undefined) out.set(name, schema);
  }
  return out;
}

/** `/items/0/qty` → its first segment, unescaped (RFC 6901): the field the issue belongs to. */
function fieldOf(pointer: string): string {
  const first = pointer.split('/')[1] ?? '';
  return first.replace(/~1/g, '/').replace(/~0/g, '~');
}

function typeOf(schema: FieldSchema): string {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (schema.enum !== undefined) return 'enum';
  return type ?? 'json';
}

/** The form of the selected function, or nothing when it declares no params. */
export class ParamsForm {
  readonly #root: HTMLElement;
  readonly #actions: ParamsFormActions;
  #schema: FieldSchema | undefined;
  #inputs = new Map<string, { read: () => unknown; issue: HTMLElement }>();
  #general: HTMLElement = h('p', { class: 'form-issue' });

  constructor(root: HTMLElement, actions: ParamsFormActions) {
    this.#root = root;
    this.#actions = actions;
  }

  /** Draws the form of `name` from `schema`, or hides it. */
  show(name: string, schema: FieldSchema | undefined): void {
    this.#schema = schema;
    this.#inputs.clear();
    if (schema?.properties === undefined) {
      this.#root.hidden = true;
      replace(this.#root);
      return;
    }
    const required = new Set(schema.required ?? []);
    const rows = Object.entries(schema.properties).map(([field, property]) =>
      this.#row(field, property, required.has(field)),
    );
    this.#general = h('p', { class: 'form-issue' });
    this.#root.hidden = false;
    replace(
      this.#root,
      h('h2', {}, `Params of ${name}`, h('span', { class: 'muted' }, ' declared in config.params')),
      h('div', { class: 'params-form' }, ...rows),
      this.#general,
      h('button', { class: 'send', onclick: () => this.#send() }, 'Send as JSON'),
    );
  }

  #row(field: string, property: FieldSchema, required: boolean): HTMLElement {
    const kind = typeOf(property);
    const issue = h('span', { class: 'form-issue', 'data-field': field });
    const initial = property.default;
    let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
    let read: () => unknown;
    if (kind === 'boolean') {
      const box = h('input', { type: 'checkbox', name: field, checked: initial === true });
      input = box;
      read = () => box.checked;
    } else if (kind === 'enum') {
      const select = h(
        'select',
        { name: field },
        ...(required ? [] : [h('option', { value: '' }, '(none)')]),
        ...(property.enum ?? []).map((value) => h('option', { value: JSON.stringify(value) }, String(value))),
      );
      input = select;
      read = () => (select.value === '' ? undefined : (JSON.parse(select.value) as unknown));
    } else if (kind === 'number' || kind === 'integer') {
      const number = h('input', {
        type: 'number',
        name: field,
        step: kind === 'integer' ? 1 : 'any',
        value: typeof initial === 'number' ? initial : undefined,
      });
      input = number;
      read = () => (number.value === '' ? undefined : Number(number.value));
    } else if (kind === 'string') {
      const text = h('input', { type: 'text', name: field, value: typeof initial === 'string' ? initial : undefined });
      input = text;
      read = () => (text.value === '' && !required ? undefined : text.value);
    } else {
      // Objects, arrays and anything else: JSON text.
      const area = h('textarea', {
        name: field,
        rows: 2,
        placeholder: kind === 'array' ? '[ ]' : '{ }',
        value: initial === undefined ? undefined : JSON.stringify(initial),
      });
      input = area;
      read = () => {
        if (area.value.trim() === '') return undefined;
        try {
          return JSON.parse(area.value) as unknown;
        } catch {
          return area.value;
        }
      };
    }
    this.#inputs.set(field, { read, issue });
    return h(
      'label',
      { class: 'form-row' },
      h('span', { class: 'form-name' }, field, required ? h('span', { class: 'required' }, ' *') : null),
      input,
      h('span', { class: 'muted form-type' }, kind),
      issue,
    );
  }

  /** The values of the form, fields left empty left out. */
  values(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [field, { read }] of this.#inputs) {
      const value = read();
      if (value !== undefined) out[field] = value;
    }
    return out;
  }

  #send(): void {
    this.showIssues([]);
    this.#actions.send(this.values());
  }

  /** Shows each issue at its field (the first segment of its pointer); the rest above the button. */
  showIssues(issues: readonly FormIssue[]): void {
    if (this.#schema === undefined) return;
    for (const { issue } of this.#inputs.values()) replace(issue);
    const general: string[] = [];
    for (const item of issues) {
      const target = this.#inputs.get(fieldOf(item.path));
      if (target === undefined) general.push(`${item.path || '(params)'}: ${item.message}`);
      else
        target.issue.textContent = `${target.issue.textContent ? `${target.issue.textContent}; ` : ''}${item.path.split('/').length > 2 ? `${item.path}: ` : ''}${item.message}`;
    }
    this.#general.textContent = general.join('; ');
  }
}
