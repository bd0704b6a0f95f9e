/**
 * The console's view of the local object store (`<CLOUDFN_PREFIX>/api/storage`): the buckets, the
 * objects and folders of the one picked under a prefix, and its writes: upload a file at the
 * prefix, download and delete an object, and a presigned URL to copy (it opens with curl or a
 * browser, without credentials). It refreshes after requests (a function may have written) and
 * after each of its own writes.
 */
import { API } from './api.js';
import { byId, h, replace } from './dom.js';
import type { PresignAnswer, StorageView } from '../../../platform/storage/protocol.js';

/** Requests answered close together refresh the panel once. */
const REFRESH_DELAY_MS = 300;
const STORAGE_API = `${API}/storage`;

/** What console-page.ts drives. */
export interface StoragePanel {
  /** A request was answered: its function may have written. */
  requestSeen(): void;
}

const objectUrl = (bucket: string, key: string): string =>
  `${STORAGE_API}/object?bucket=${encodeURIComponent(bucket)}&key=${encodeURIComponent(key)}`;

const size = (bytes: number): string =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1048576).toFixed(1)} MiB`;

/** A refusal's message from the JSON error shape, else the status. */
async function refusal(res: Response): Promise<string> {
  try {
    return ((await res.json()) as { error: { message: string } }).error.message;
  } catch {
    return `${res.url} answered ${res.status}`;
  }
}

/**
 * Fills `#storage` and keeps it current; hidden when the app has no store.
 * @example const storage = startStoragePanel(); storage.requestSeen();
 */
export function startStoragePanel(): StoragePanel {
  const root = byId('storage');
  const section = byId('storage-section');
  const status = h('div', { class: 'muted storage-status', role: 'status' });
  const presigned = h('input', { class: 'storage-url', readonly: true, hidden: true, 'aria-label': 'presigned URL' });
  const body = h('div', { class: 'storage-body' });
  const fileInput = h('input', { type: 'file', class: 'storage-upload-file', hidden: true });
  let bucket: string | undefined;
  let prefix = '';
  let timer: ReturnType<typeof setTimeout> | undefined;

  const say = (text: string): void => {
    status.textContent = text;
  };

  const attempt = async (work: () => Promise<Response>, done: string): Promise<Response | undefined> => {
    try {
      const res = await work();
      if (!res.ok) {
        say(await refusal(res));
        return undefined;
      }
      say(done);
      return res;
    } catch (error) {
      say((error as Error).message);
      return undefined;
    } finally {
      await refresh();
    }
  };

  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (file === undefined || bucket === undefined) return;
    const key = `${prefix}${file.name}`;
    const target = bucket;
    void attempt(
      () =>
        fetch(objectUrl(target, key), {
          method: 'PUT',
          headers: { 'content-type': file.type || 'application/octet-stream' },
          body: file,
        }),
      `uploaded ${key}`,
    );
    fileInput.value = '';
  });

  const presign = async (target: string, key: string): Promise<void> => {
    const res = await attempt(
      () =>
        fetch(`${STORAGE_API}/presign`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ bucket: target, key }),
        }),
      `presigned URL of ${key}, valid for 1 hour`,
    );
    if (res === undefined) return;
    const answer = (await res.json()) as PresignAnswer;
    presigned.hidden = false;
    presigned.value = answer.url;
    presigned.select();
    // The clipboard may be refused (no focus, no permission): the URL stays shown to copy by hand.
    await navigator.clipboard?.writeText(answer.url).catch(() => undefined);
  };

  const render = (view: StorageView): void => {
    section.hidden = false;
    const buckets =
      view.buckets.length === 0
        ? h('li', { class: 'muted', text: 'no buckets yet' })
        : view.buckets.map((b) =>
            h(
              'li',
              {},
              h('button', {
                class: b.name === bucket ? 'link storage-bucket active' : 'link storage-bucket',
                text: b.name === view.defaultBucket ? `${b.name} (TOS_BUCKET)` : b.name,
                'data-bucket': b.name,
                onclick: () => {
                  bucket = bucket === b.name ? undefined : b.name;
                  prefix = '';
                  void refresh();
                },
              }),
            ),
          );
    const listing = view.listing;
    const parts = prefix.split('/').filter(Boolean);
    const crumbs =
      listing === undefined
        ? null
        : h(
            'div',
            { class: 'storage-prefix' },
            h('button', { class: 'link', text: `${listing.bucket}/`, onclick: () => go('') }),
            ...parts.map((part, index) =>
              h('button', {
                class: 'link',
                text: `${part}/`,
                onclick: () => go(`${parts.slice(0, index + 1).join('/')}/`),
              }),
            ),
          );
    const rows =
      listing === undefined
        ? []
        : [
            ...listing.prefixes.map((p) =>
              h(
                'li',
                { class: 'storage-folder' },
                h('button', { class: 'link', text: p.slice(prefix.length), onclick: () => go(p) }),
              ),
            ),
            ...listing.objects.map((o) =>
              h(
                'li',
                { class: 'storage-object', 'data-key': o.key },
                h('span', { class: 'storage-key', text: o.key.slice(prefix.length) }),
                h('span', { class: 'muted', text: ` ${size(o.size)} ${o.contentType}` }),
                h(
                  'div',
                  { class: 'storage-tools' },
                  h('a', {
                    class: 'link storage-download',
                    href: objectUrl(listing.bucket, o.key),
                    download: o.key.slice(o.key.lastIndexOf('/') + 1),
                    text: 'download',
                  }),
                  h('button', {
                    class: 'link storage-presign',
                    text: 'copy URL',
                    onclick: () => void presign(listing.bucket, o.key),
                  }),
                  h('button', {
                    class: 'link storage-delete',
                    text: 'delete',
                    onclick: () => {
                      if (!confirm(`Delete ${o.key} from ${listing.bucket}?`)) return;
                      void attempt(
                        () => fetch(objectUrl(listing.bucket, o.key), { method: 'DELETE' }),
                        `deleted ${o.key}`,
                      );
                    },
                  }),
                ),
              ),
            ),
          ];
    if (listing !== undefined && rows.length === 0)
      rows.push(h('li', { class: 'muted', text: prefix === '' ? 'empty bucket' : 'nothing under this prefix' }));
    replace(
      body,
      h('ul', { class: 'fn-list storage-buckets' }, ...(Array.isArray(buckets) ? buckets : [buckets])),
      listing === undefined
        ? null
        : h(
            'div',
            { class: 'storage-listing' },
            h(
              'div',
              { class: 'db-tools' },
              crumbs,
              h('button', { class: 'link storage-upload', text: 'upload', onclick: () => fileInput.click() }),
            ),
            h('ul', { class: 'fn-list storage-objects' }, ...rows),
            listing.truncated ? h('div', { class: 'muted', text: 'more objects than shown' }) : null,
          ),
    );
  };

  const go = (next: string): void => {
    prefix = next;
    void refresh();
  };

  const refresh = async (): Promise<void> => {
    const query =
      bucket === undefined ? '' : `?bucket=${encodeURIComponent(bucket)}&prefix=${encodeURIComponent(prefix)}`;
    try {
      const res = await fetch(`${STORAGE_API}${query}`, { cache: 'no-store' });
      // No store in this app (no "tos" component): the section stays hidden.
      if (res.status === 404) return;
      if (!res.ok) throw new Error(await refusal(res));
      render((await res.json()) as StorageView);
    } catch (error) {
      replace(body, h('div', { class: 'muted', text: (error as Error).message }));
    }
  };

  replace(root, status, presigned, body, fileInput);
  void refresh();
  return {
    requestSeen: () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => void refresh(), REFRESH_DELAY_MS);
    },
  };
}
