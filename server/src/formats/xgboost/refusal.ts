/**
 * How the XGBoost readers (model.ts, legacy-binary.ts, dumps.ts) stop on a file they cannot read:
 * deep inside a reader a `Refusal` is thrown with the reason and what was found; at the reader's
 * edge `unlessRefused` turns it into the `{ ok: false }` answer the linter reports. Any other error
 * is a bug and propagates.
 */
import type { UnreadableReason } from '../types';

/** `linear`: the model is a linear booster (gblinear), a model without trees rather than an unread one. */
export type Unreadable = { ok: false; reason: UnreadableReason; detail: string; linear?: boolean };

export class Refusal extends Error {
  constructor(
    readonly reason: UnreadableReason,
    detail: string,
    readonly linear = false,
  ) {
    super(detail);
  }
}

/** XGBoost's linear booster: a model, but without a tree to analyse. */
export const gblinear = () => new Refusal('unsupported-estimator', 'the booster is gblinear (a linear model, no trees); only tree boosters are read', true);

export const corrupt = (detail: string) => new Refusal('corrupt', detail);

/** `read()`, or the answer its Refusal gives. */
export function unlessRefused<T>(read: () => T): T | Unreadable {
  try {
    return read();
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.reason, detail: error.message, ...(error.linear ? { linear: true } : {}) };
    throw error;
  }
}
