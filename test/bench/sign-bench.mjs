/**
 * The signing rows, in their own process: `node sign-bench.mjs <rounds> <ms>` prints one JSON
 * line with ops/s per round for `signRequest` against bare `crypto.sign` and `verifyResponse`
 * against bare `crypto.verify`, each pair alternated within a round. The baselines sign and
 * verify the very bytes cloudfn builds, with the same `KeyObject`s.
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

const cases = {
  signRequest: () => signRequest(requestOptions),
  cryptoSign: () => sign('sha256', requestData, privateKey),
  verifyResponse: () => verifyResponse(responseOptions),
  cryptoVerify: () => verify('sha256', responseData, publicKey, responseSignature),
};

/** Calls `fn` for `duration` ms and returns calls per second. */
function opsPerSecond(fn, duration) {
  const start = performance.now();
  const until = start + duration;
  let n = 0;
  let now = start;
  while (now < until) {
    for (let i = 0; i < 8; i++) fn();
    n += 8;
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}

for (const fn of Object.values(cases)) opsPerSecond(fn, Math.min(200, ms));
const result = { signRequest: [], cryptoSign: [], verifyResponse: [], cryptoVerify: [] };
for (let r = 0; r < rounds; r++) {
  // Alternate which side goes first so a drift of the machine does not favour one side.
  const pairs = [
    ['signRequest', 'cryptoSign'],
    ['verifyResponse', 'cryptoVerify'],
  ];
  for (const [a, b] of pairs) {
    for (const name of r % 2 === 0 ? [a, b] : [b, a]) result[name].push(opsPerSecond(cases[name], ms));
  }
}
process.stdout.write(JSON.stringify(result) + '\n');
