// The types of @open-dy/node-server-sdk, the platform's server SDK, which is not on the public
// npm registry: those of cloudfn's stand-in (docs/platform-projects.md of cloudfn, "Types").
// Delete this file once the real package is installed from the platform's registry.
declare module '@open-dy/node-server-sdk' {
  export * from 'cloudfn/server-sdk';
  export { default } from 'cloudfn/server-sdk';
}
