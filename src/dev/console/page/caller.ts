/**
 * The "Call as" picker of the console page: the dev user (whose X-TT-* headers the dev server
 * adds), another openid, or a user not signed in. It gives the headers the gateway would send
 * for the choice; a request carrying any of them is left as sent by the dev server.
 */
import type { DevUserInfo } from './api.js';
import { h, replace } from './dom.js';

/** Who the page's requests are made as. */
export type CallerChoice = { as: 'dev' } | { as: 'openid'; openid: string } | { as: 'anonymous' };

/** The headers a choice sends (none for the dev user: the server adds them). */
export function callerHeaders(choice: CallerChoice, user: DevUserInfo): Record<string, string> {
  if (choice.as === 'dev') return {};
  if (choice.as === 'anonymous') return { 'x-tt-anonymous-openid': `anon-${user.openid}`, 'x-tt-appid': user.appid };
  const openid = choice.openid.trim();
  if (openid === '' || /[^\x20-\x7e]/.test(openid))
    throw new Error(
      `the openid to call as must be printable ASCII and not empty, got ${JSON.stringify(choice.openid)}`,
    );
  return { 'x-tt-openid': openid, 'x-tt-appid': user.appid };
}

/**
 * Renders the picker into `root`; `onChange` gets each new choice.
 * @example renderCallerPicker(byId('caller'), meta.devUser, (choice) => (caller = choice))
 */
export function renderCallerPicker(
  root: HTMLElement,
  user: DevUserInfo,
  onChange: (choice: CallerChoice) => void,
): void {
  const openid = h('input', {
    id: 'caller-openid',
    placeholder: 'openid',
    'aria-label': 'openid to call as',
    hidden: true,
  });
  const select = h(
    'select',
    { id: 'caller-as', 'aria-label': 'call as' },
    h('option', { value: 'dev' }, `dev user (${user.openid})`),
    h('option', { value: 'openid' }, 'another openid'),
    h('option', { value: 'anonymous' }, 'anonymous (not signed in)'),
  );
  const changed = (): void => {
    openid.hidden = select.value !== 'openid';
    onChange(
      select.value === 'openid'
        ? { as: 'openid', openid: openid.value }
        : select.value === 'anonymous'
          ? { as: 'anonymous' }
          : { as: 'dev' },
    );
  };
  select.addEventListener('change', changed);
  openid.addEventListener('input', changed);
  replace(root, select, openid, h('p', { class: 'hint' }, `appid ${user.appid}; set devUser in cloudfn.config`));
}
