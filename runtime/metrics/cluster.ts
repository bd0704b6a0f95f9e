/**
 * Metrics across `--workers`: the numbers a scraper reads are the fleet of one machine, summed
 * over its workers, whichever worker the kernel hands the scrape to. The worker that receives
 * `/_cloudfn/metrics` asks the primary over the cluster's IPC channel; the primary gathers
 * every worker's series with prom-client's `AggregatorRegistry` (counters and histograms summed,
 * the cold start and the event-loop delays their maximum) and answers.
 */
import cluster, { type Worker } from 'node:cluster';
import type * as Prom from 'prom-client';
import { sendToWorker } from '../serve/worker-message.js';

/** The message a worker sends for the aggregated text, and the primary's answer. */
export const METRICS_MESSAGE = 'cloudfn:metrics';

interface MetricsMessage {
  type: typeof METRICS_MESSAGE;
  id: number;
  text?: string;
  error?: string;
}

/** How long a worker waits for the primary; prom-client's own wait for the workers is 5 s. */
const ANSWER_MS = 6000;

function isMetricsMessage(message: unknown): message is MetricsMessage {
  return typeof message === 'object' && message !== null && (message as MetricsMessage).type === METRICS_MESSAGE;
}

/**
 * In a worker: the aggregated text, asked of the primary. Rejects when the primary does not
 * answer in time or reports an error.
 * @example const text = await askPrimary()
 */
export function askPrimary(): Promise<string> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    const timer = setTimeout(() => {
      process.off('message', onMessage);
      reject(new Error(`the primary did not answer within ${ANSWER_MS} ms`));
    }, ANSWER_MS);
    function onMessage(message: unknown): void {
      if (!isMetricsMessage(message) || message.id !== id) return;
      clearTimeout(timer);
      process.off('message', onMessage);
      if (message.error !== undefined) reject(new Error(message.error));
      else resolve(message.text ?? '');
    }
    process.on('message', onMessage);
    process.send!({ type: METRICS_MESSAGE, id } satisfies MetricsMessage);
  });
}
let nextId = 0;

/**
 * In a worker: lets the primary read this worker's registry (prom-client answers its requests).
 * @example joinCluster(prom, metrics.registry)
 */
export function joinCluster(prom: typeof Prom, registry: Prom.Registry): void {
  prom.AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs prom-client's listener for the primary's requests.
  new prom.AggregatorRegistry();
}

/**
 * In the primary: answers the workers' requests for the aggregated text. prom-client is loaded
 * on the first request. Returns how to stop answering.
 * @example const stop = aggregateForWorkers(() => import('prom-client'))
 */
export function aggregateForWorkers(load: () => Promise<unknown>): () => void {
  let aggregator: Promise<Prom.AggregatorRegistry<Prom.PrometheusContentType>> | undefined;
  const onMessage = (worker: Worker, message: unknown): void => {
    if (!isMetricsMessage(message) || message.text !== undefined || message.error !== undefined) return;
    aggregator ??= load().then((mod) => {
      const prom = (
        typeof (mod as typeof Prom).AggregatorRegistry === 'function' ? mod : (mod as { default: unknown }).default
      ) as typeof Prom;
      return new prom.AggregatorRegistry();
    });
    aggregator
      .then((registry) => registry.clusterMetrics())
      .then(
        (text) => sendToWorker(worker, { type: METRICS_MESSAGE, id: message.id, text }),
        (error: unknown) =>
          sendToWorker(worker, { type: METRICS_MESSAGE, id: message.id, error: (error as Error).message }),
      );
  };
  cluster.on('message', onMessage);
  return () => cluster.off('message', onMessage);
}
