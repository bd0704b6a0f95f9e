/**
 * The live list of requests: every request the dev server finished, whatever sent it (curl, a
 * client, this page), from the ones it kept before the page opened and then its `request`
 * events; a click shows its log lines, a button replays it.
 */
import type { RequestInfo } from '../protocol.js';
import { h, replace } from './dom.js';

/** Requests kept in the list; older ones drop off the end. */
const MAX_REQUESTS = 200;

export interface RequestListHandlers {
  /** Shows a request's log lines. */
  show(info: RequestInfo): void;
  /** Loads a request into the editor and sends it again. */
  replay(info: RequestInfo): void;
}

/** `12 ms`, `1.4 s`. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The colour class of a status: good, warn, bad. */
export function statusKind(status: number): 'good' | 'warn' | 'bad' {
  return status >= 500 ? 'bad' : status >= 400 ? 'warn' : 'good';
}

export class RequestList {
  readonly #root: HTMLElement;
  readonly #handlers: RequestListHandlers;
  #items: RequestInfo[] = [];
  #selected: string | undefined;

  constructor(root: HTMLElement, handlers: RequestListHandlers) {
    this.#root = root;
    this.#handlers = handlers;
    this.#render();
  }

  /** A request ended: it goes on top. */
  add(info: RequestInfo): void {
    this.#items.unshift(info);
    if (this.#items.length > MAX_REQUESTS) this.#items.length = MAX_REQUESTS;
    this.#render();
  }

  /**
   * The requests answered before the page opened (newest first) go under the ones that arrived
   * live since; a request in both is listed once.
   */
  addEarlier(infos: readonly RequestInfo[]): void {
    const listed = new Set(this.#items.map((info) => info.logid));
    this.#items.push(...infos.filter((info) => !listed.has(info.logid)));
    if (this.#items.length > MAX_REQUESTS) this.#items.length = MAX_REQUESTS;
    this.#render();
  }

  /** Marks the request whose lines are shown (undefined: none). */
  select(logid: string | undefined): void {
    this.#selected = logid;
    for (const li of this.#root.querySelectorAll<HTMLElement>('.request-entry'))
      li.classList.toggle('active', li.dataset['logid'] === logid);
  }

  clear(): void {
    this.#items = [];
    this.#render();
  }

  #render(): void {
    if (this.#items.length === 0) {
      replace(this.#root, h('li', { class: 'muted empty' }, 'Every request the server answers appears here.'));
      return;
    }
    replace(this.#root, ...this.#items.map((info) => this.#entry(info)));
  }

  #entry(info: RequestInfo): HTMLElement {
    const page = info.trigger === 'console_debug';
    return h(
      'li',
      {
        class: `request-entry${info.logid === this.#selected ? ' active' : ''}`,
        'data-logid': info.logid,
        'data-trace-id': info.traceId,
        'data-trigger': info.trigger,
      },
      h(
        'button',
        {
          class: 'load',
          title: `show its log lines (logid ${info.logid}, trace ${info.traceId}, trigger ${info.trigger})`,
          onclick: () => this.#handlers.show(info),
        },
        h('span', { class: 'method' }, info.method),
        h('span', { class: 'url' }, info.url),
        h('span', { class: `badge ${statusKind(info.status)} request-status` }, String(info.status)),
        h('span', { class: 'request-duration' }, formatDuration(info.durationMs)),
        page ? h('span', { class: 'request-from', title: 'sent by this page' }, 'page') : null,
      ),
      h(
        'button',
        {
          class: 'icon replay',
          title: 'load into the editor and send again',
          'aria-label': 'replay',
          onclick: () => this.#handlers.replay(info),
        },
        '↻',
      ),
    );
  }
}
