/**
 * Bit masks over all leaves of the forest, for the cell enumeration. Leaf l of tree t is bit
 * `treeWord[t] * 32 + l`: each tree starts on a fresh 32-bit word, so "does tree t still reach a
 * leaf of this kind" is an OR over its own few words. A partial assignment of features is
 * tracked as the set of leaves still consistent with it: assigning x[f] = v ANDs in the mask of
 * leaves whose path does not require x[f] = 1 - v.
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
  /** `keep[f * 2 + v]`: the words to AND when assigning x[f] = v (leaves that require the other value cleared). */
  keep: SparseMask[];
  /** `tests[f]`: leaves whose path tests feature f. */
  tests: SparseMask[];
  /** `nonzero[c]`: leaves holding at least one training row of class c. */
  nonzero: Uint32Array[];
}

export function buildLeafMasks(table: LeafTable): LeafMasks {
  const trees = table.trees.length;
  const treeWord = new Int32Array(trees + 1);
  for (let t = 0; t < trees; t++) treeWord[t + 1] = treeWord[t] + Math.ceil(table.trees[t].nodes.length / 32);
  const words = treeWord[trees];
  const all = new Uint32Array(words);
  const cleared = Array.from({ length: table.features * 2 }, () => new Uint32Array(words));
  const tested = Array.from({ length: table.features }, () => new Uint32Array(words));
  const nonzero = Array.from({ length: table.classes }, () => new Uint32Array(words));
  for (let t = 0; t < trees; t++) {
    const tree = table.trees[t];
    for (let l = 0; l < tree.nodes.length; l++) {
      const word = treeWord[t] + (l >>> 5);
      const bit = 1 << (l & 31);
      all[word] |= bit;
      for (let k = tree.literalStart[l]; k < tree.literalStart[l + 1]; k++) {
        const f = tree.literalFeature[k];
        // This leaf needs x[f] = value, so assigning the other value clears it.
        cleared[f * 2 + (1 - tree.literalValue[k])][word] |= bit;
        tested[f][word] |= bit;
      }
      for (let c = 0; c < table.classes; c++) if (tree.counts[l * table.classes + c] > 0) nonzero[c][word] |= bit;
    }
  }
  const keep = cleared.map((mask) => sparse(mask, (w) => ~w >>> 0));
  const tests = tested.map((mask) => sparse(mask, (w) => w));
  return { words, treeWord, all, keep, tests, nonzero };
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
