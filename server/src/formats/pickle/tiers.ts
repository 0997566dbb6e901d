/**
 * The three tiers of a global a pickle names, as picklescan and modelscan sort them:
 * - allowed: harmless data classes and reconstructors (./allowlist); no finding;
 * - dangerous: callables that run commands, evaluate code, import by name, load pickles or open
 *   files and sockets (./dangerous-globals); the file is `unsafe-pickle` and is not analysed;
 * - unknown: everything else (another library's class, the project's own function). The VM calls
 *   nothing, so the file is read as usual; the names are reported as `unknown-pickle-global`,
 *   because loading the file with Python imports them.
 */
import { isAllowedGlobal } from './allowlist';
import { dangerReason } from './dangerous-globals';

export type GlobalTier = 'allowed' | 'dangerous' | 'unknown';

export interface GlobalClass {
  tier: GlobalTier;
  /** Why a dangerous global is dangerous. */
  reason?: string;
}

export function classifyGlobal(module: string, name: string): GlobalClass {
  if (isAllowedGlobal(module, name)) return { tier: 'allowed' };
  const reason = dangerReason(module, name);
  return reason ? { tier: 'dangerous', reason } : { tier: 'unknown' };
}
