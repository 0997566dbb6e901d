/**
 * Largest and smallest of many numbers. `Math.max(...values)` passes one argument per value and
 * overflows the call stack past about 120,000 of them (a 100-tree forest of 272,224 nodes was
 * "unreadable" for it, sweep 8); these loop instead.
 */

/** The largest of `values`, or `empty` when there are none. */
export function maxOf(values: Iterable<number>, empty = Number.NEGATIVE_INFINITY): number {
  let best = empty;
  let seen = false;
  for (const v of values) {
    if (!seen || v > best) best = v;
    seen = true;
  }
  return seen ? best : empty;
}

/** The smallest of `values`, or `empty` when there are none. */
export function minOf(values: Iterable<number>, empty = Number.POSITIVE_INFINITY): number {
  let best = empty;
  let seen = false;
  for (const v of values) {
    if (!seen || v < best) best = v;
    seen = true;
  }
  return seen ? best : empty;
}
