/**
 * Node module hooks (registered by node-resolver.ts with `module.register` where Node lacks
 * `module.registerHooks`, which takes an in-thread copy of this hook instead): an ES `import` of
 * `@open-dy/node-server-sdk` that the project cannot resolve loads the stand-in instead. Kept
 * apart because Node loads hooks on its own thread, from this file alone.
 */

/** The stand-in's URL, given at registration. */
let standIn = '';

/** Receives the registration's `data`. */
export function initialize(data: { standIn: string }): void {
  standIn = data.standIn;
}

type NextResolve = (specifier: string, context: unknown) => Promise<{ url: string }>;

/** Resolves as Node would, and only when that fails with "not found" sends the SDK to the stand-in. */
export async function resolve(
  specifier: string,
  context: unknown,
  nextResolve: NextResolve,
): Promise<{ url: string; shortCircuit?: boolean }> {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (specifier !== '@open-dy/node-server-sdk' || (error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND')
      throw error;
    return { url: standIn, shortCircuit: true };
  }
}
