/**
 * The young generation of Node 24's V8, capped where cloudfn starts node itself (the workers of
 * `cloudfn start --workers`; the templates' Dockerfile passes the same flag). V8 13.6 (Node 24.0)
 * raised the scavenger's largest new space from 8 to 32 MB a semi-space (nodejs/node #61967,
 * #63863): under a POST load the young generation grows to that size and stays there, so
 * cloudfn's peak RSS went from about fastify's to twice it. `--scavenger-max-new-space-capacity-mb=8`
 * keeps Node 22's size. Node 22 takes the flag and is unchanged by it; Node 20 and 14 refuse it,
 * so it is added from Node 24 on only, and never when the command line already sizes the young
 * generation. See docs/performance.md#node-24s-young-generation.
 */

/** The flag, as node takes it on its command line (not in NODE_OPTIONS: node refuses it there). */
export const YOUNG_GENERATION_FLAG = '--scavenger-max-new-space-capacity-mb=8';

/** Flags that size the young generation themselves: given one, cloudfn adds nothing. */
const SIZING_FLAGS = [
  '--scavenger-max-new-space-capacity-mb',
  '--scavenger_max_new_space_capacity_mb',
  '--max-semi-space-size',
  '--max_semi_space_size',
];

/**
 * The command-line flags for a node process cloudfn starts: `execArgv` itself, plus the cap on
 * Node 24 and later when neither it nor the semi-space size is given there or in `nodeOptions`.
 * @example youngGenerationArgv(process.execArgv, process.versions.node, process.env.NODE_OPTIONS)
 */
export function youngGenerationArgv(execArgv: readonly string[], nodeVersion: string, nodeOptions = ''): string[] {
  const major = Number(nodeVersion.split('.')[0]);
  const given = [...execArgv, ...nodeOptions.split(/\s+/)];
  if (!(major >= 24) || given.some((flag) => SIZING_FLAGS.some((name) => flag === name || flag.startsWith(`${name}=`))))
    return [...execArgv];
  return [...execArgv, YOUNG_GENERATION_FLAG];
}
