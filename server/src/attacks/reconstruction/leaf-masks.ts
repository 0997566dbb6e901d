/**
 * Bit masks over all leaves of the forest, for the cell enumeration. Leaf l of tree t is bit
 * `treeWord[t] * 32 + l`: each tree starts on a fresh 32-bit word, so "does tree t still reach a
 * leaf of this kind" is an OR over its own few words. A partial assignment of features is
 * tracked as the set of leaves still consistent with it: narrowing feature f to the intervals
 * below a cut c (or at and above it) ANDs in the mask of leaves whose path allows some interval
 * there. On a binary feature the only cut is c = 1: below it is x[f] = 0, above it x[f] = 1.
 */
import type { LeafTable } from './leaves';

/** Only the words where a mask differs from the neutral value, to keep ANDs and tests short. */
export interface SparseMask {
  words: Int32Array;
  bits: Uint32Array;
}

export interface LeafMasks {
  /** Total words of a full leaf set. */
  words: number;
  /** First word of each tree, and one past the last tree's words at index `trees`. */
  treeWord: Int32Array;
  /** Every leaf. */
  all: Uint32Array;
  /** `tests[f]`: leaves whose path tests feature f. */
  tests: SparseMask[];
  /** `nonzero[c]`: leaves holding at least one training row of class c. */
  nonzero: Uint32Array[];
  /** Per feature, the leaves whose path tests it: their bit and the interval indices the path allows. */
  testing: TestingLeaves[];
  /** Keep-masks for narrowing a feature to one side of a cut, built when first needed. */
  cuts: CutMasks;
}

export interface TestingLeaves {
  word: Int32Array;
  bit: Uint32Array;
  low: Int32Array;
  high: Int32Array;
}

export function buildLeafMasks(table: LeafTable): LeafMasks {
  const trees = table.trees.length;
  const treeWord = new Int32Array(trees + 1);
  for (let t = 0; t < trees; t++) treeWord[t + 1] = treeWord[t] + Math.ceil(table.trees[t].nodes.length / 32);
  const words = treeWord[trees];
  const all = new Uint32Array(words);
  const tested = Array.from({ length: table.features }, () => new Uint32Array(words));
  const nonzero = Array.from({ length: table.classes }, () => new Uint32Array(words));
  const testing = Array.from({ length: table.features }, () => ({ word: [] as number[], bit: [] as number[], low: [] as number[], high: [] as number[] }));
  for (let t = 0; t < trees; t++) {
    const tree = table.trees[t];
    for (let l = 0; l < tree.nodes.length; l++) {
      const word = treeWord[t] + (l >>> 5);
      const bit = 1 << (l & 31);
      all[word] |= bit;
      for (let k = tree.literalStart[l]; k < tree.literalStart[l + 1]; k++) {
        const f = tree.literalFeature[k];
        tested[f][word] |= bit;
        const list = testing[f];
        list.word.push(word);
        list.bit.push(bit >>> 0);
        list.low.push(tree.literalLow[k]);
        list.high.push(tree.literalHigh[k]);
      }
      for (let c = 0; c < table.classes; c++) if (tree.counts[l * table.classes + c] > 0) nonzero[c][word] |= bit;
    }
  }
  const tests = tested.map((mask) => sparse(mask, (w) => w));
  const lists: TestingLeaves[] = testing.map((list) => ({
    word: Int32Array.from(list.word),
    bit: Uint32Array.from(list.bit),
    low: Int32Array.from(list.low),
    high: Int32Array.from(list.high),
  }));
  return { words, treeWord, all, tests, nonzero, testing: lists, cuts: new CutMasks(lists, table.axes.intervals, words) };
}

/**
 * `below(f, c)`: the mask to AND when x[f] is narrowed to intervals < c (clears leaves that need an
 * interval >= c); `atOrAbove(f, c)`: when narrowed to intervals >= c (clears leaves that need one
 * < c). Built on first use and kept: a numeric feature can have hundreds of cuts, of which the
 * search uses some.
 */
export class CutMasks {
  private readonly belowCache: (SparseMask | undefined)[][];
  private readonly aboveCache: (SparseMask | undefined)[][];

  constructor(
    private readonly testing: readonly TestingLeaves[],
    intervals: Int32Array,
    private readonly words: number,
  ) {
    this.belowCache = Array.from(intervals, (k) => new Array<SparseMask | undefined>(k + 1));
    this.aboveCache = Array.from(intervals, (k) => new Array<SparseMask | undefined>(k + 1));
  }

  below(f: number, c: number): SparseMask {
    return (this.belowCache[f][c] ??= this.build(f, (low) => low >= c, () => false));
  }

  atOrAbove(f: number, c: number): SparseMask {
    return (this.aboveCache[f][c] ??= this.build(f, () => false, (high) => high < c));
  }

  private build(f: number, clearLow: (low: number) => boolean, clearHigh: (high: number) => boolean): SparseMask {
    const { word, bit, low, high } = this.testing[f];
    const cleared = new Uint32Array(this.words);
    for (let i = 0; i < word.length; i++) if (clearLow(low[i]) || clearHigh(high[i])) cleared[word[i]] |= bit[i];
    return sparse(cleared, (w) => ~w >>> 0);
  }
}

/** The nonzero words of `mask`, stored as `transform(word)`. */
function sparse(mask: Uint32Array, transform: (word: number) => number): SparseMask {
  const words: number[] = [];
  const bits: number[] = [];
  for (let w = 0; w < mask.length; w++) {
    if (mask[w] !== 0) {
      words.push(w);
      bits.push(transform(mask[w]));
    }
  }
  return { words: Int32Array.from(words), bits: Uint32Array.from(bits) };
}

export function andSparse(target: Uint32Array, mask: SparseMask): void {
  const { words, bits } = mask;
  for (let i = 0; i < words.length; i++) target[words[i]] &= bits[i];
}

export function intersectsSparse(set: Uint32Array, mask: SparseMask): boolean {
  const { words, bits } = mask;
  for (let i = 0; i < words.length; i++) if ((set[words[i]] & bits[i]) !== 0) return true;
  return false;
}

export function popcount32(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
