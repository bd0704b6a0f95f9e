/**
 * The other load generator: autocannon, in this process. It takes fractional durations, which
 * the quick harness test needs; for the real table wrk is used (see wrk.mjs for why).
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

/** Same arguments and result shape as `runWrk`. */
export async function runAutocannon({ url, connections, seconds, request = {} }) {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    // autocannon checks for the end of a run only when it samples (every second by default).
    sampleInt: 50,
    method: request.method ?? 'GET',
    body: request.bodyFile ? readFileSync(request.bodyFile) : undefined,
    headers: request.contentType ? { 'content-type': request.contentType } : {},
    timeout: 10,
  });
  return {
    rps: result.requests.total / result.duration,
    requests: result.requests.total,
    latencyMs: result.latency.average,
    percentilesMs: { 50: result.latency.p50, 75: result.latency.p75, 90: result.latency.p90, 99: result.latency.p99 },
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    socketErrors: result.errors,
  };
}
