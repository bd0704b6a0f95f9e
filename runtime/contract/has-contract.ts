/** Whether a function declares a contract (`config.params` or `config.result`). */
import type { FunctionConfig } from '../types.js';

/** True when a function declares a contract, so its handler needs wrapping. */
export function hasContract(config: FunctionConfig | undefined): boolean {
  return config !== undefined && (config.params !== undefined || config.result !== undefined);
}
