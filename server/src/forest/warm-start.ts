/**
 * A forest saved with warm_start=True may hold trees of several fit calls: scikit-learn keeps the
 * trees it has and grows the new ones on whatever rows the next fit is given. Nothing in the file
 * says whether those rows were the same, so nothing may assume that every tree saw one training
 * set: the reconstruction certifies from one tree per class (a leaf's rows are training rows of
 * some fit), and membership proves nothing from the counts. Soundness sweep 16: five trees fitted
 * on 150 rows, five more on 150 others, gave 212 wrong "proven non-member" verdicts.
 */
import type { Forest } from './schema';

export function mayMixFits(forest: Pick<Forest, 'hyperParameters' | 'trees'>): boolean {
  return forest.hyperParameters.warm_start === true && forest.trees.length > 1;
}

export const WARM_START_REASON = 'warm_start=True: the trees may have been grown by several fit calls on different rows, which the file does not record, so no proof may assume every tree saw the same training set';
