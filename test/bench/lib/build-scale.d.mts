/** Types of ./build-scale.mjs, for the build row's short form. */

export function functionName(i: number): string;

export function generateProject(dir: string, count: number, root: string): void;

export function folderBytes(dir: string): number;

/** The figures of one project size. */
export interface BuildFigures {
  count: number;
  /** esbuild's own one-pass time on the same entries, in milliseconds. */
  esbuildMs: number;
  server: { ms: number; bytes: number; bundles: number } | null;
  functionService: { ms: number; bytes: number } | null;
}

export function measureBuild(options: {
  root: string;
  work: string;
  count: number;
  buildOptions?: Record<string, unknown>;
  targets?: ('server' | 'function-service')[];
}): Promise<BuildFigures>;

export const BUILD_ROWS: [string, string, string, string | undefined][];

export function buildRows(options: {
  root: string;
  work: string;
  progress?: (line: string) => void;
}): Promise<unknown[]>;
