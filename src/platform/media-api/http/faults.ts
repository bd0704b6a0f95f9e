/**
 * Fault injection: parses `--faults` (latency, 500, expired-token, bad-signature,
 * rate-limit) and rolls the dice for each `/api/cloud_voc/` request.
 */
import { platformError } from '../../errors.js';

/** Faults the emulator can inject into `/api/cloud_voc/` answers, each at a rate from 0 to 1. */
export interface FaultSpec {
  /** Delays the answer by `ms` milliseconds. */
  latency?: { rate: number; ms: number };
  /** Answers HTTP 500 (err_no 50000) without a signature, before the operation runs. */
  error500?: { rate: number };
  /** Answers 401 PLATFORM_TOKEN_EXPIRED (err_no 40102) whatever the token. */
  expiredToken?: { rate: number };
  /** Signs a 2xx answer with a signature that does not verify. */
  badSignature?: { rate: number };
  /** Answers 429 PLATFORM_RATE_LIMITED (err_no 42900) whatever the rate. */
  rateLimit?: { rate: number };
  /**
   * Delivers a callback twice (same id, each signed afresh), as the platform may: its
   * notifications are at least once.
   */
  duplicateCallback?: { rate: number };
}

const names = {
  latency: 'latency',
  '500': 'error500',
  error500: 'error500',
  'expired-token': 'expiredToken',
  'bad-signature': 'badSignature',
  'rate-limit': 'rateLimit',
  'duplicate-callback': 'duplicateCallback',
} as const satisfies Record<string, keyof FaultSpec>;

/** The grammar of `--faults`, quoted in its error messages. */
export const FAULTS_GRAMMAR =
  'name=rate[,name=rate...] with names latency (latency=rate:ms), 500, expired-token, bad-signature, rate-limit, duplicate-callback and rates from 0 to 1, e.g. latency=0.5:200,500=0.1';

function parseRate(text: string, entry: string): number {
  const rate = Number(text);
  if (text === '' || !Number.isFinite(rate) || rate < 0 || rate > 1) {
    throw platformError(
      'PLATFORM_OPTIONS',
      'faults',
      `rate ${JSON.stringify(text)} in ${JSON.stringify(entry)} must be a number from 0 to 1; the grammar is ${FAULTS_GRAMMAR}`,
    );
  }
  return rate;
}

/**
 * Parses the `--faults` text.
 * @example parseFaults('latency=0.5:200ms,500=0.1') // { latency: { rate: 0.5, ms: 200 }, error500: { rate: 0.1 } }
 */
export function parseFaults(text: string): FaultSpec {
  const spec: FaultSpec = {};
  for (const entry of text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
    const [name = '', value = ''] = entry.split('=', 2);
    const key = (names as Record<string, keyof FaultSpec>)[name.trim()];
    if (key === undefined)
      throw platformError(
        'PLATFORM_OPTIONS',
        'faults',
        `unknown fault ${JSON.stringify(name)}; the grammar is ${FAULTS_GRAMMAR}`,
      );
    if (key === 'latency') {
      const [rate = '', ms = '1000'] = value.split(':', 2);
      const delay = Number(ms.replace(/ms$/, ''));
      if (!Number.isInteger(delay) || delay < 0) {
        throw platformError(
          'PLATFORM_OPTIONS',
          'faults',
          `latency ${JSON.stringify(ms)} must be whole milliseconds, e.g. latency=0.5:200`,
        );
      }
      spec.latency = { rate: parseRate(rate, entry), ms: delay };
    } else {
      spec[key] = { rate: parseRate(value, entry) };
    }
  }
  return spec;
}

/** What the fault dice decided for one request. */
export interface FaultDraw {
  delayMs: number;
  error500: boolean;
  expiredToken: boolean;
  rateLimit: boolean;
  badSignature: boolean;
}

/**
 * Rolls every configured fault once for a request; `random` is injectable so tests can
 * force a fault with rate 1 or a fixed sequence.
 * @example drawFaults({ error500: { rate: 1 } }).error500 // true
 */
export function drawFaults(spec: FaultSpec, random: () => number = Math.random): FaultDraw {
  const hit = (fault: { rate: number } | undefined) => fault !== undefined && fault.rate > 0 && random() < fault.rate;
  return {
    delayMs: hit(spec.latency) ? (spec.latency?.ms ?? 0) : 0,
    error500: hit(spec.error500),
    expiredToken: hit(spec.expiredToken),
    rateLimit: hit(spec.rateLimit),
    badSignature: hit(spec.badSignature),
  };
}
