/**
 * Allocation per request, from V8's own counters: the bytes a server process allocates (on the
 * JavaScript heap, and outside it for ArrayBuffers and Buffers) and the collections it runs,
 * between two marks. Unlike CPU time, these barely move with the load of a shared machine, so a
 * change that allocates more shows in one short run (issue 57).
 *
 * How: a `v8.GCProfiler` records every collection between the marks with the heap's statistics
 * before and after it. What was allocated is what is in use at the end, less what was in use at
 * the start, plus what each collection freed (before less after), for the heap's used size and
 * for its external memory alike. External memory that is freed without a collection (rare on the
 * request path) is not counted. V8 frees the memory of dead ArrayBuffers (every Buffer's) on a
 * concurrent sweeper after the collection, where the statistics do not see it: a process measured
 * for Buffers runs with `--no-concurrent-array-buffer-sweeping` (lib/server.mjs starts the bench's
 * servers so), else the bytes outside the heap count only what is still alive at the end.
 */
import { GCProfiler, getHeapStatistics } from 'node:v8';

/** The counters between two marks. */
export class AllocationMeter {
  #profiler = undefined;
  #start = undefined;

  /** Marks the start (a collection first, so the young generation starts empty). */
  start() {
    globalThis.gc?.();
    this.#profiler = new GCProfiler();
    this.#profiler.start();
    this.#start = getHeapStatistics();
  }

  /**
   * Marks the end.
   * @returns {{ heapBytes: number, externalBytes: number, scavenges: number, markCompacts: number }}
   */
  stop() {
    const end = getHeapStatistics();
    const { statistics } = this.#profiler.stop();
    let heapBytes = end.used_heap_size - this.#start.used_heap_size;
    let externalBytes = end.external_memory - this.#start.external_memory;
    let scavenges = 0;
    let markCompacts = 0;
    for (const { gcType, beforeGC, afterGC } of statistics) {
      heapBytes += beforeGC.heapStatistics.usedHeapSize - afterGC.heapStatistics.usedHeapSize;
      externalBytes += Math.max(0, beforeGC.heapStatistics.externalMemory - afterGC.heapStatistics.externalMemory);
      if (gcType === 'Scavenge' || gcType === 'MinorMarkSweep') scavenges++;
      else if (gcType === 'MarkSweepCompact') markCompacts++;
    }
    return { heapBytes, externalBytes, scavenges, markCompacts };
  }
}
