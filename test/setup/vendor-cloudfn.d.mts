/** Types of vendor-cloudfn.mjs, for the TypeScript tests. */
export declare function vendorCloudfn(
  dir: string,
  tgz: string,
  pkg: { dependencies: Record<string, string> },
  name?: string,
): void;
