/** Compiling and bundling functions with esbuild (the only place that imports it). */
export { CompileError, createCompileHook, formatMessage } from './compile.js';
