/**
 * The "Call as" picker of the console page: the dev user (whose X-TT-* headers the dev server
 * adds), another openid, or a user not signed in, and optionally a live room (its id and
 * anchor). It gives the headers the gateway would send for the choice; a request carrying any
 * identity header is left as sent by the dev server.
 */
import type { DevUser } from '../../../../runtime/shapes.js';
import { h, replace } from './dom.js';

/** The live room a request comes from; empty fields send nothing. */
export interface RoomChoice {
  roomid?: string;
  anchorOpenid?: string;
}

/** Who the page's requests are made as. */
export type CallerChoice = ({ as: 'dev' } | { as: 'openid'; openid: string } | { as: 'anonymous' }) & RoomChoice;

function ascii(what: string, value: string): string {
  const text = value.trim();
  if (/[^\x20-\x7e]/.test(text)) throw new Error(`the ${what} must be printable ASCII, got ${JSON.stringify(value)}`);
  return text;
}

/** The room's headers: `X-Room-ID` and `X-Anchor-OpenID`, where filled in. */
function roomHeaders(choice: RoomChoice): Record<string, string> {
  const headers: Record<string, string> = {};
  const roomid = ascii('room id', choice.roomid ?? '');
  if (roomid !== '') headers['x-room-id'] = roomid;
  const anchor = ascii('anchor openid', choice.anchorOpenid ?? '');
  if (anchor !== '') headers['x-anchor-openid'] = anchor;
  return headers;
}

/** The headers a choice sends (no identity for the dev user: the server adds them). */
export function callerHeaders(choice: CallerChoice, user: DevUser): Record<string, string> {
  const room = roomHeaders(choice);
  if (choice.as === 'dev') return room;
  if (choice.as === 'anonymous')
    return { 'x-tt-anonymous-openid': `anon-${user.openid}`, 'x-tt-appid': user.appid, ...room };
  const openid = choice.openid.trim();
  if (openid === '' || /[^\x20-\x7e]/.test(openid))
    throw new Error(
      `the openid to call as must be printable ASCII and not empty, got ${JSON.stringify(choice.openid)}`,
    );
  return { 'x-tt-openid': openid, 'x-tt-appid': user.appid, ...room };
}

/**
 * Renders the picker into `root`; `onChange` gets each new choice.
 * @example renderCallerPicker(byId('caller'), meta.devUser, (choice) => (caller = choice))
 */
export function renderCallerPicker(root: HTMLElement, user: DevUser, onChange: (choice: CallerChoice) => void): void {
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
  const roomid = h('input', {
    id: 'caller-roomid',
    placeholder: user.roomid === undefined ? 'room id' : `room ${user.roomid}`,
    'aria-label': 'live room id (X-Room-ID)',
  });
  const anchor = h('input', {
    id: 'caller-anchor',
    placeholder: user.anchorOpenid === undefined ? 'anchor openid' : `anchor ${user.anchorOpenid}`,
    'aria-label': 'live room anchor openid (X-Anchor-OpenID)',
  });
  const changed = (): void => {
    openid.hidden = select.value !== 'openid';
    const room: RoomChoice = { roomid: roomid.value, anchorOpenid: anchor.value };
    onChange(
      select.value === 'openid'
        ? { as: 'openid', openid: openid.value, ...room }
        : select.value === 'anonymous'
          ? { as: 'anonymous', ...room }
          : { as: 'dev', ...room },
    );
  };
  select.addEventListener('change', changed);
  openid.addEventListener('input', changed);
  roomid.addEventListener('input', changed);
  anchor.addEventListener('input', changed);
  replace(
    root,
    select,
    openid,
    roomid,
    anchor,
    h('p', { class: 'hint' }, `appid ${user.appid}; set devUser (roomid, anchorOpenid, ...) in cloudfn.config`),
  );
}
