/** `cloudfn init`: project templates copied into a new folder (this folder's public entry). */
export { initProject, listTemplates, packageNameFor, templatesDir } from './scaffold.js';
export { isPublished, ownVersion, packageRoot, vendorCloudfn } from './vendor.js';
export type { CloudfnSource, InitOptions, InitResult } from './scaffold.js';
export type { PublishedOptions } from './vendor.js';
