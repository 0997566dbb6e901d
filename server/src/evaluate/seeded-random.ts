/**
 * A small seeded generator (mulberry32): reproducible random numbers in [0, 1) for baselines
 * and tests, where Math.random would make figures differ between runs.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Shuffles `items` in place (Fisher-Yates), drawing from `random` (e.g. a seededRandom). */
export function shuffleInPlace<T>(items: { length: number; [i: number]: T }, random: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const k = Math.floor(random() * (i + 1));
    const swap = items[i];
    items[i] = items[k];
    items[k] = swap;
  }
}
