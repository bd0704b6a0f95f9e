/**
 * The young generation of Node 24's V8 and later, capped where cloudfn starts node itself (the
 * workers of `cloudfn start --workers`; the templates' Dockerfile passes the same flag). V8 13.6
 * (Node 24.0) raised the young generation's largest size (nodejs/node #61967, #63863): under a
 * POST load it grows from Node 22's 32 MB to 64 MB and stays there, so cloudfn's peak RSS went
 * from about fastify's to twice it. Node 26 grows the same way. `--max-semi-space-size=16` keeps
 * Node 22's size on both; every Node cloudfn supports takes it (Node 14 included), and Node 22,
 * where it is the default, is unchanged by it. It is added from Node 24 on only, and never when
 * the command line or NODE_OPTIONS already sizes the young generation. Node 24's own
 * `--scavenger-max-new-space-capacity-mb` is gone from Node 25's V8, so it is not the one used.
 * See docs/performance.md#node-24s-young-generation.
 */

/** The flag, as node takes it on its command line (Node 20 and later take it in NODE_OPTIONS too). */
export const YOUNG_GENERATION_FLAG = '--max-semi-space-size=16';

/** Flags that size the young generation themselves: given one, cloudfn adds nothing. */
const SIZING_FLAGS = [
  '--max-semi-space-size',
  '--max_semi_space_size',
  '--scavenger-max-new-space-capacity-mb',
  '--scavenger_max_new_space_capacity_mb',
];

/**
 * The command-line flags for a node process cloudfn starts: `execArgv` itself, plus the cap on
 * Node 24 and later when no young-generation size is given there or in `nodeOptions`.
 * @example youngGenerationArgv(process.execArgv, process.versions.node, process.env.NODE_OPTIONS)
 */
export function youngGenerationArgv(execArgv: readonly string[], nodeVersion: string, nodeOptions = ''): string[] {
  const major = Number(nodeVersion.split('.')[0]);
  const given = [...execArgv, ...nodeOptions.split(/\s+/)];
  if (!(major >= 24) || given.some((flag) => SIZING_FLAGS.some((name) => flag === name || flag.startsWith(`${name}=`))))
    return [...execArgv];
  return [...execArgv, YOUNG_GENERATION_FLAG];
}
