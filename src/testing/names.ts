/**
 * Naming a function from a request path the way the router does, so a handler invoked at
 * `/videos/list` is the function `videos/list`, and one invoked at `/` is `index`.
 */

/**
 * @example nameFromPath('/videos/list?page=2') // 'videos/list'
 */
export function nameFromPath(path: string): string {
  let name = path.split('?')[0]!.replace(/^\/+|\/+$/g, '');
  try {
    name = decodeURIComponent(name);
  } catch {
    // The runtime answers a bad escape with 400 before routing; any name will do.
  }
  return name === '' ? 'index' : name;
}
