/** Types of ./overload-loads.mjs, for the TypeScript tests that run the same loads. */

/** What a load resolves with: the normal client's statuses (0: no answer), and the load's own. */
export interface LoadResult {
  normal: number[];
  other?: number[];
}

export type LoadName = 'idle' | 'slowloris' | 'stalled' | 'uploads';

export const LOADS: Record<LoadName, (port: number) => Promise<LoadResult>>;

export const LOAD_NAMES: LoadName[];

export function count(statuses: number[]): Record<string, number>;
