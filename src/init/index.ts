/** `cloudfn init`: project templates copied into a new folder (this folder's public entry). */
export { initProject, listTemplates, packageNameFor, templatesDir } from './scaffold.js';
export type { InitOptions, InitResult } from './scaffold.js';
