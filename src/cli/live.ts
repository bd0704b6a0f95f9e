/**
 * `cloudfn live <roomid> <msg_type>`: act as a live room's viewers on a running `cloudfn dev`:
 * send a comment, a gift, likes or a fans-club message (POST ${CLOUDFN_PREFIX}/live/<roomid>/<msg_type>),
 * optionally start the room's data task first, or script N messages a second for load.
 */
import { CLOUDFN_PREFIX } from '../../runtime/options.js';
import { resolveDevUser } from '../platform/gateway/dev-user.js';
import { OptionsError, parseOrHelp } from './args.js';
import type { CommandHelp } from './help.js';
import { printJson } from './json.js';

export const HELP: CommandHelp = {
  name: 'live',
  usage: [
    'live <roomid> <msg_type> [--content <text>] [--gift <id>] [--num <n>] [--value <n>] [--user <openid>] [--nickname <name>] [--data <json>] [--start] [--url <url>] [--json]',
    'live <roomid> <msg_type> --rate <n> --count <n> [--data <json>] [--start] [--url <url>] [--json]',
    'live token <roomid> [--anchor <openid>] [--nickname <name>] [--avatar <url>] [--url <url>] [--json]',
  ],
  description: `Sends live-room messages on a running cloudfn dev, as the platform pushes them: msg_type is
live_comment, live_gift, live_like or live_fansclub; the fields not given are filled in, each
message gets a unique msg_id, and the push reaches the function at liveData.path of
cloudfn.config with the platform's headers (x-roomid, x-anchor-openid, x-msg-type, x-signature...).
The room must have a started task of that type (your start_game, the console, or --start), as on
the platform. Prints the function's status and logid on stderr and its body on stdout; exits 1
when the push was refused or the function answered 4xx/5xx. \`live token <roomid>\` mints a
live-room token (30 minutes) that webcastmate/info trades for the room, and prints it on stdout.`,
  options: [
    ['--content <text>', "a comment's text (live_comment)"],
    ['--gift <id>', "the gift's sec_gift_id (live_gift)"],
    ['--num <n>', 'gift_num (live_gift), like_num (live_like) or fansclub_level (live_fansclub)'],
    ['--value <n>', "the gift's gift_value, in fen (default: gift_num)"],
    ['--user <openid>', "the viewer's sec_openid (default viewer-1)"],
    ['--nickname <name>', "the viewer's nickname (default: the openid); with token, the anchor's"],
    ['--anchor <openid>', "token: the room's anchor (default: the anchor the room's pushes name)"],
    ['--avatar <url>', "token: the anchor's avatar_url"],
    ['--data <json>', 'partial messages as JSON, an object or an array (the flags above are added to each)'],
    ['--start', "start the room's task of msg_type first (task/start, the dev user's appid)"],
    ['--rate <n>', 'scripted traffic: n messages a second (1 to 1000), one push each, until --count are sent'],
    ['--count <n>', 'how many messages the traffic sends (1 to 100000, default 100)'],
    ['--url <url>', 'the dev server (default http://127.0.0.1:$PORT, PORT defaulting to 8000)'],
    ['--json', "print the simulator's answer as one JSON object on stdout"],
  ],
  examples: [
    ['live 7001 live_comment --start --content "join red"', 'start the comment task of room 7001 and comment'],
    ['live 7001 live_gift --gift dev-gift --num 5 --user ann', 'ann sends five gifts'],
    ['live 7001 live_like --rate 50 --count 500', 'five hundred likes, fifty a second'],
    ['live token 7001 --anchor anchor-a', 'a token of room 7001 whose anchor is anchor-a'],
    ['live 7001 live_comment --data \'[{"content":"1"},{"content":"2"}]\' --json', 'one push of two comments, as JSON'],
  ],
  json: `{ "roomid": string, "msg_type": string, "messages": object[], "status": number, "logid": string, "body": string }  // traffic: { roomid, msgType, rate, count, sent, ok, failed, stoppedBy? }; token: { token, room_id, anchor_open_id, nick_name, avatar_url, expires_at }`,
  pages: ['live-room.md', 'cli.md'],
};

function fields(msgType: string, values: Record<string, string | boolean | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const whole = (flag: string, value: string | boolean | undefined): number | undefined => {
    if (typeof value !== 'string') return undefined;
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < 0) throw new OptionsError(`--${flag} must be a whole number, got ${value}`);
    return n;
  };
  if (typeof values['content'] === 'string') out['content'] = values['content'];
  if (typeof values['gift'] === 'string') out['sec_gift_id'] = values['gift'];
  if (typeof values['user'] === 'string') out['sec_openid'] = values['user'];
  if (typeof values['nickname'] === 'string') out['nickname'] = values['nickname'];
  const num = whole('num', values['num']);
  if (num !== undefined)
    out[msgType === 'live_gift' ? 'gift_num' : msgType === 'live_like' ? 'like_num' : 'fansclub_level'] = num;
  const value = whole('value', values['value']);
  if (value !== undefined) out['gift_value'] = value;
  return out;
}

async function call(url: string, init: RequestInit): Promise<{ status: number; json: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    throw new OptionsError(
      `nothing answered at ${new URL(url).origin} (${cause?.code ?? (error as Error).message}); start cloudfn dev, or pass --url`,
    );
  }
  const text = await response.text();
  try {
    return { status: response.status, json: JSON.parse(text) as Record<string, unknown> };
  } catch {
    throw new OptionsError(`${url} answered ${response.status}, not JSON: ${text.slice(0, 200)}; is it cloudfn dev?`);
  }
}

function failure(json: Record<string, unknown>, status: number): OptionsError {
  const error = json['error'] as { message?: string } | undefined;
  return new OptionsError(error?.message ?? `the simulator answered ${status}: ${JSON.stringify(json)}`);
}

export async function run(argv: string[]): Promise<number> {
  const args = parseOrHelp(
    argv,
    {
      content: { type: 'string' },
      gift: { type: 'string' },
      num: { type: 'string' },
      value: { type: 'string' },
      user: { type: 'string' },
      nickname: { type: 'string' },
      anchor: { type: 'string' },
      avatar: { type: 'string' },
      data: { type: 'string' },
      start: { type: 'boolean' },
      rate: { type: 'string' },
      count: { type: 'string' },
      url: { type: 'string' },
      json: { type: 'boolean' },
    },
    HELP,
  );
  if (args === undefined) return 0;
  const { values, positionals } = args;
  const server = (values.url ?? `http://127.0.0.1:${process.env['PORT'] || '8000'}`).replace(/\/+$/, '');
  if (positionals[0] === 'token' && positionals.length === 2) {
    const given = { anchor_openid: values.anchor, nick_name: values.nickname, avatar_url: values.avatar };
    const minted = await call(`${server}${CLOUDFN_PREFIX}/live/${encodeURIComponent(positionals[1]!)}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(given),
    });
    if (minted.status >= 400) throw failure(minted.json, minted.status);
    if (values.json === true) return printJson(minted.json, 0);
    process.stderr.write(
      `a token of room ${String(minted.json['room_id'])}, anchor ${String(minted.json['anchor_open_id'])}, good for 30 minutes:\n`,
    );
    process.stdout.write(`${String(minted.json['token'])}\n`);
    return 0;
  }
  if (positionals.length !== 2)
    throw new OptionsError(
      `live takes a room id and a message type, got ${positionals.length} argument(s); e.g. cloudfn live 7001 live_comment --content hi`,
    );
  const [roomid, msgType] = positionals as [string, string];
  const base = `${server}${CLOUDFN_PREFIX}/live`;
  const extra = fields(msgType, values);
  let messages: unknown = {};
  if (values.data !== undefined) {
    try {
      messages = JSON.parse(values.data);
    } catch (error) {
      throw new OptionsError(`--data must be JSON (an object or an array of objects): ${(error as Error).message}`);
    }
  }
  const merged = Array.isArray(messages)
    ? messages.map((m: unknown) => ({ ...(m as object), ...extra }))
    : { ...(messages as object), ...extra };

  if (values.start === true) {
    // The dev server's own dev user, by the same rule (CLOUDFN_DEV_APPID, else the default).
    const appid = resolveDevUser({ env: process.env }).appid;
    const started = await call(`${base}/api/live_data/task/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ roomid, appid, msg_type: msgType }),
    });
    if (started.json['err_no'] !== 0)
      throw new OptionsError(String(started.json['err_msg'] ?? JSON.stringify(started.json)));
  }

  const traffic = values.rate !== undefined || values.count !== undefined;
  const query = traffic
    ? `?rate=${encodeURIComponent(values.rate ?? '10')}&count=${encodeURIComponent(values.count ?? '100')}&wait=1`
    : '';
  const answer = await call(`${base}/${encodeURIComponent(roomid)}/${encodeURIComponent(msgType)}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(merged),
  });
  if (answer.status >= 400) throw failure(answer.json, answer.status);
  if (traffic) {
    const t = answer.json as { sent: number; ok: number; failed: number; stoppedBy?: string };
    const code = t.failed > 0 || t.stoppedBy !== undefined ? 1 : 0;
    if (values.json === true) return printJson(answer.json, code);
    process.stderr.write(
      `${t.sent} ${msgType} message(s) sent to room ${roomid}: ${t.ok} answered 2xx, ${t.failed} did not${t.stoppedBy === undefined ? '' : `; stopped: ${t.stoppedBy}`}\n`,
    );
    return code;
  }
  const status = answer.json['status'] as number;
  const code = status >= 400 ? 1 : 0;
  if (values.json === true) return printJson(answer.json, code);
  const count = (answer.json['messages'] as unknown[]).length;
  process.stderr.write(
    `${count} ${msgType} message(s) pushed to room ${roomid}: the function answered ${status} (logid ${String(answer.json['logid'])})\n`,
  );
  const body = String(answer.json['body'] ?? '');
  process.stdout.write(body.endsWith('\n') || body === '' ? body : `${body}\n`);
  return code;
}
