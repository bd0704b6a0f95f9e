/**
 * The signing rows, in their own process: `node sign-bench.mjs <rounds> <ms>` prints one JSON
 * line with calls per CPU second, per round, for `signRequest` against bare `crypto.sign` and
 * `verifyResponse` against bare `crypto.verify`, with the same `KeyObject`s. A round runs each
 * case of a group in blocks of 20 ms, alternated (forward, then backward) for `ms` per case, and
 * counts the process's CPU time, not the wall clock: on a loaded machine a 1 s block measured by
 * the wall clock took whatever preemption fell into it (ratios of 0.49-1.46 in one run).
 *
 * The baselines (`cryptoSign`, `cryptoVerify`) do per call the least any caller of node:crypto
 * must do for this scheme, and nothing else: encode the lines as UTF-8 and base64 the
 * signature for its header (signing), decode the received base64 signature and encode the
 * received lines (verifying). They check nothing (no timestamp window, nonce grammar or header
 * syntax) and make no nonce, so cloudfn's checks still count against it. `cryptoSignPrepared`
 * and `cryptoVerifyPrepared` are the earlier baselines, which prepared the bytes once outside
 * the loop and so skipped work no real caller can skip; they stay reported for comparison.
 */
import { generateKeyPairSync, sign, verify } from 'node:crypto';

const [rounds = 3, ms = 1000] = process.argv.slice(2).map(Number);
const {
  signRequest,
  verifyResponse,
  signResponse,
  loadPrivateKey,
  loadPublicKey,
  defaultHeaderProfile,
  responseStringToSign,
} = await import('../../dist/src/sign/index.js');

const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privateKey = loadPrivateKey(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
const publicKey = loadPublicKey(pair.publicKey.export({ type: 'spki', format: 'pem' }));

const requestOptions = {
  privateKey,
  appid: 'wx1234567890abcdef',
  keyVersion: '1',
  method: 'POST',
  url: '/v1/videos?page=1',
  body: JSON.stringify({ title: 'bench', tags: ['a', 'b'] }),
};
const signed = signRequest(requestOptions);
const requestData = Buffer.from(signed.stringToSign, 'utf8');

const responseBody = JSON.stringify({ code: 0, data: { vid: 'v123', state: 'ready' } });
const responseHeaders = signResponse({ privateKey, body: responseBody });
const responseOptions = { status: 200, headers: responseHeaders, body: responseBody, publicKey };
verifyResponse(responseOptions);
const responseSignature = Buffer.from(responseHeaders[defaultHeaderProfile.signature], 'base64');
const timestamp = responseHeaders[defaultHeaderProfile.timestamp];
const nonce = responseHeaders[defaultHeaderProfile.nonce];
const responseData = Buffer.from(responseStringToSign({ timestamp, nonce, body: responseBody }), 'utf8');
if (!verify('sha256', responseData, publicKey, responseSignature))
  throw new Error('the bare verify baseline does not check the same bytes as verifyResponse');

const responseSignatureText = responseHeaders[defaultHeaderProfile.signature];
const cases = {
  signRequest: () => signRequest(requestOptions),
  cryptoSign: () =>
    sign(
      'sha256',
      Buffer.from(`POST\n${signed.path}\n${signed.timestamp}\n${signed.nonce}\n${signed.body}\n`, 'utf8'),
      privateKey,
    ).toString('base64'),
  cryptoSignPrepared: () => sign('sha256', requestData, privateKey),
  verifyResponse: () => verifyResponse(responseOptions),
  cryptoVerify: () =>
    verify(
      'sha256',
      Buffer.from(`${timestamp}\n${nonce}\n${responseBody}\n`, 'utf8'),
      publicKey,
      Buffer.from(responseSignatureText, 'base64'),
    ),
  cryptoVerifyPrepared: () => verify('sha256', responseData, publicKey, responseSignature),
};
if (!cases.cryptoVerify()) throw new Error('the per-call verify baseline does not check the same bytes');
if (cases.cryptoSign() !== signed.signature)
  throw new Error('the per-call sign baseline does not sign the same bytes as signRequest');

/** Wall-clock length of one block of calls, in ms: short, so that the cases of a group alternate often. */
const BLOCK_MS = 20;

/**
 * Runs the cases of `group` in alternated blocks for about `duration` ms each and returns, for
 * each, its calls per CPU second (user and system time of the process, GC threads included).
 */
function cpuRound(group, duration) {
  const calls = group.map(() => 0);
  const micros = group.map(() => 0);
  const until = performance.now() + duration * group.length;
  for (let cycle = 0; performance.now() < until; cycle++) {
    // Forward, then backward: each case follows each other case as often (garbage left by one
    // block is collected in the next).
    for (let k = 0; k < group.length; k++) {
      const i = cycle % 2 === 0 ? k : group.length - 1 - k;
      const fn = cases[group[i]];
      const start = performance.now();
      const cpu = process.cpuUsage();
      let n = 0;
      do {
        for (let j = 0; j < 4; j++) fn();
        n += 4;
      } while (performance.now() - start < BLOCK_MS);
      const used = process.cpuUsage(cpu);
      calls[i] += n;
      micros[i] += used.user + used.system;
    }
  }
  return calls.map((n, i) => (n * 1e6) / micros[i]);
}

const groups = [
  ['signRequest', 'cryptoSign', 'cryptoSignPrepared'],
  ['verifyResponse', 'cryptoVerify', 'cryptoVerifyPrepared'],
];
for (const group of groups) cpuRound(group, Math.min(200, ms));
const result = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let r = 0; r < rounds; r++) {
  for (const group of groups) {
    const perSecond = cpuRound(group, ms);
    group.forEach((name, i) => result[name].push(perSecond[i]));
  }
}
process.stdout.write(JSON.stringify(result) + '\n');
