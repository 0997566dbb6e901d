/**
 * How many rows of each class a box estimate (estimate.ts) places, which tree seeds and certifies
 * each class, and how many rows each leaf gets. Forests trained with bootstrap, weights or noise
 * do not share row counts: each tree saw its own draws, so its leaves' distinct rows sum to about
 * 63% of N and its class split wanders with its draws. The estimate scales each tree's rows of a
 * class to one shared class total, the classes' mean share over all trees, so every tree asks the
 * walks for as many rows of a class as there are rows of it; an anchor tree's leaves keep at least
 * the rows they prove.
 */
import type { LeafTable } from '../leaves';

/** Per tree and leaf, the rows of class `c` the tree's single-class leaves prove. */
export function provenOfClass(proven: Int32Array, c: number, classes: number): number {
  let sum = 0;
  for (let at = c; at < proven.length; at += classes) sum += proven[at];
  return sum;
}

/**
 * Per class, the tree whose leaves prove the most rows of that class (on a tie, the one with more
 * leaves, then the first). A class no tree proves a row of takes the tree that proves the most rows
 * in all (on a tie the one with most leaves: finer boxes to walk from).
 */
export function classAnchors(proven: readonly Int32Array[], table: LeafTable, classes: number): number[] {
  const leaves = (t: number) => table.trees[t].nodes.length;
  const best = (score: (t: number) => number) => {
    let chosen = 0;
    let most = -1;
    for (let t = 0; t < proven.length; t++) {
      const s = score(t);
      if (s > most || (s === most && leaves(t) > leaves(chosen))) {
        chosen = t;
        most = s;
      }
    }
    return { chosen, most };
  };
  const overall = best((t) => proven[t].reduce((a, b) => a + b, 0)).chosen;
  return Array.from({ length: classes }, (_, c) => {
    const { chosen, most } = best((t) => provenOfClass(proven[t], c, classes));
    return most > 0 ? chosen : overall;
  });
}

/**
 * Whole rows per class summing to N: each class's mean share over the trees of their (estimated)
 * rows, raised where needed to the rows its anchor proves (a proven row is a row), taken from the
 * classes with rows to spare.
 */
export function classRowTargets(guesses: readonly Float64Array[], classes: number, N: number, provenRows: readonly number[]): number[] {
  const share = new Float64Array(classes);
  let counted = 0;
  for (const guess of guesses) {
    const totals = new Float64Array(classes);
    for (let at = 0; at < guess.length; at++) totals[at % classes] += guess[at];
    const total = totals.reduce((a, b) => a + b, 0);
    if (!(total > 0)) continue;
    for (let c = 0; c < classes; c++) share[c] += totals[c] / total;
    counted++;
  }
  const exact = Array.from(share, (s) => (counted > 0 ? (s / counted) * N : N / classes));
  const rows = wholeParts(exact, N);
  for (let c = 0; c < classes; c++) {
    while (rows[c] < provenRows[c]) {
      // The class with the most rows above what it must keep gives one.
      let giver = -1;
      for (let o = 0; o < classes; o++) if (o !== c && rows[o] > provenRows[o] && (giver < 0 || rows[o] - provenRows[o] > rows[giver] - provenRows[giver])) giver = o;
      if (giver < 0) {
        rows[c] = provenRows[c];
        break;
      }
      rows[giver]--;
      rows[c]++;
    }
  }
  return rows;
}

/**
 * Per leaf and class, the tree's estimated rows of the class scaled to the class's total
 * (`targets[c]`), in whole rows (largest remainders get the rows the floors leave over). Where
 * `floors[c]` is given (the class's anchor tree), each leaf first gets the rows it proves.
 */
export function scaleToClassRows(left: ArrayLike<number>, guess: Float64Array, targets: readonly number[], classes: number, floors: readonly (Int32Array | undefined)[]): Int32Array {
  const counts = new Int32Array(guess.length);
  for (let c = 0; c < classes; c++) {
    const floor = floors[c];
    const leaves: number[] = [];
    let total = 0;
    let kept = 0;
    for (let n = 0; n < left.length; n++) {
      const at = n * classes + c;
      if (left[n] !== -1 || !(guess[at] > 0)) continue;
      leaves.push(at);
      total += guess[at];
      if (floor) {
        counts[at] = floor[at];
        kept += floor[at];
      }
    }
    const rest = targets[c] - kept;
    if (leaves.length === 0 || rest <= 0) continue;
    // What each leaf should hold beyond its floor, scaled to the rows left to place.
    const extra = leaves.map((at) => Math.max(0, (guess[at] * targets[c]) / total - counts[at]));
    const extraTotal = extra.reduce((a, b) => a + b, 0);
    const shares = extraTotal > 0 ? extra.map((e) => (e * rest) / extraTotal) : leaves.map((at) => (guess[at] * rest) / total);
    const whole = wholeParts(shares, rest);
    leaves.forEach((at, k) => (counts[at] += whole[k]));
  }
  return counts;
}

/** Non-negative reals to whole numbers summing to `sum` (floors, then the largest remainders). */
function wholeParts(exact: readonly number[], sum: number): number[] {
  const whole = exact.map((x) => Math.floor(Math.max(0, x)));
  let placed = whole.reduce((a, b) => a + b, 0);
  const order = exact.map((x, k) => ({ k, rest: Math.max(0, x) - whole[k] })).sort((a, b) => b.rest - a.rest || a.k - b.k);
  for (let i = 0; placed < sum && order.length > 0; i = (i + 1) % order.length) {
    whole[order[i].k]++;
    placed++;
  }
  return whole;
}
