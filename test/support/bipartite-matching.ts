/**
 * Maximum bipartite matching (Hopcroft–Karp), for soundness checks that need distinct true rows:
 * "can every reconstructed box be given its own training row inside it?" is whether a matching
 * covers every left vertex. O(E sqrt(V)), where the minimum-cost matching the exact-enumeration
 * tests use (Hungarian, O(n^3) on a dense cost matrix) would be slower and says no more.
 */

export interface Matching {
  /** Size of the maximum matching. */
  size: number;
  /** Per left vertex, its right partner or -1. */
  leftPartner: Int32Array;
}

/** `adjacency[u]` lists the right vertices (0 .. rights - 1) left vertex u may be matched to. */
export function maximumMatching(adjacency: readonly (readonly number[])[], rights: number): Matching {
  const lefts = adjacency.length;
  const leftPartner = new Int32Array(lefts).fill(-1);
  const rightPartner = new Int32Array(rights).fill(-1);
  const distance = new Int32Array(lefts);
  const queue = new Int32Array(lefts);
  const INF = 0x7fffffff;
  let size = 0;

  // Layers from the free left vertices along alternating paths; true when a free right vertex is reached.
  const layer = (): boolean => {
    let head = 0;
    let tail = 0;
    for (let u = 0; u < lefts; u++) {
      if (leftPartner[u] === -1) {
        distance[u] = 0;
        queue[tail++] = u;
      } else distance[u] = INF;
    }
    let found = false;
    while (head < tail) {
      const u = queue[head++];
      for (const v of adjacency[u]) {
        const w = rightPartner[v];
        if (w === -1) found = true;
        else if (distance[w] === INF) {
          distance[w] = distance[u] + 1;
          queue[tail++] = w;
        }
      }
    }
    return found;
  };

  // Augments along a shortest alternating path from u (recursion as deep as the path: fine for test sizes).
  const augment = (u: number): boolean => {
    for (const v of adjacency[u]) {
      const w = rightPartner[v];
      if (w === -1 || (distance[w] === distance[u] + 1 && augment(w))) {
        leftPartner[u] = v;
        rightPartner[v] = u;
        return true;
      }
    }
    distance[u] = INF;
    return false;
  };

  while (layer()) {
    for (let u = 0; u < lefts; u++) if (leftPartner[u] === -1 && augment(u)) size++;
  }
  return { size, leftPartner };
}

/** The first left vertex this maximum matching leaves uncovered (-1: none), to name in a failure message. */
export function firstUnmatched(matching: Matching): number {
  return matching.leftPartner.indexOf(-1);
}
