/**
 * `first-tree-exposes-counts`: a boosted model's first tree (first K trees for K classes) states,
 * through its hessian sums and weights, how many training rows and how many of each label sit in
 * every leaf, and so the training-set size and label balance (attacks/first-tree-probe.ts).
 */
import { everyTreeRowCounts } from '../attacks/boosted-covers';
import { probeFirstTrees, type FirstTreeProbe, type ProbedLeaf } from '../attacks/first-tree-probe';
import type { Forest } from '../forest/schema';
import type { ModelRule } from './types';
import { capitalised, formatCount, formatCountList, formatNumber, percent, plural } from '../util/wording';
import { formatClass, resampledRowsText } from './format';
import { conditionsText, type Categories } from './conditions';
import { lead } from './message';

/** A class label; dumps state no classes, so their labels are the indices XGBoost trains on. */
function label(forest: Forest, index: number): string {
  return index < forest.classes.length ? formatClass(forest, index) : String(index);
}


function describeLeaf(forest: Forest, leaf: ProbedLeaf, probe: FirstTreeProbe, classIndex: number, categories?: Categories): string {
  const where = conditionsText(forest, leaf.box, categories) || 'the whole feature space';
  const rows = plural(leaf.rows, 'row');
  let what = '';
  if (leaf.positives !== undefined) {
    what = probe.objective.startsWith('multi')
      ? `, ${formatCount(leaf.positives!)} of class ${label(forest, classIndex)}`
      : `, ${formatCount(leaf.positives!)} with label ${label(forest, 1)}`;
  } else if (leaf.labelSum !== undefined) {
    what = `, mean label ${formatNumber(leaf.labelSum / Math.max(1, leaf.rows))}`;
  }
  return `node ${leaf.nativeId} (${where}) holds ${rows}${what}`;
}

/** A scikit-learn boosted model's loss, as the objective it is read as (its hessians are XGBoost's). */
const LOSS_WORDS: Record<string, string> = {
  'reg:squarederror': 'squared error',
  'binary:logistic': 'log loss',
  'multi:softmax': 'multi-class log loss',
  'multi:softprob': 'multi-class log loss',
};

/** Whether the probe read row counts from the first trees: then this rule fires. */
export function probeCountsRows(probe: FirstTreeProbe): boolean {
  return probe.status !== 'not-applicable' && (probe.rows !== undefined || probe.classDraws === true);
}

export const firstTreeExposesCounts: ModelRule = {
  id: 'first-tree-exposes-counts',
  check({ forest, probe: computed, categories }) {
    if (!forest.boosting) return [];
    const probe = computed ?? probeFirstTrees(forest);
    if (!probeCountsRows(probe)) return [];
    const k = probe.trees.length;
    const leaves = probe.trees.reduce((sum, t) => sum + t.leaves.length, 0);
    const which = k === 1 ? 'The first tree' : `The first ${k} trees (one per class)`;
    // Class trees that each drew their own rows: no N, each tree's draw and its rows of its class.
    let total = probe.rows === undefined ? '' : probe.weightedCounts ? `${formatCountList([probe.rows])} weighted rows (see below)` : plural(probe.rows, 'training row');
    let balance = '';
    if (probe.classDraws) {
      const ofClass = probe.trees.map((t) => (t.leaves.every((l) => l.positives !== undefined) ? t.leaves.reduce((sum, l) => sum + l.positives!, 0) : undefined));
      total = `each tree counts its own draw of the rows (${formatCountList(probe.trees.map((t) => t.rows))} rows`;
      balance = ofClass.every((c) => c !== undefined) ? `, of which ${formatCountList(ofClass.map((c) => c!))} are of the tree's class)` : ')';
    } else if (probe.classCounts) {
      balance = probe.classCounts.length === 2 && !probe.objective.startsWith('multi')
        ? `, ${formatCount(probe.classCounts[1])} with label ${label(forest, 1)} (${percent(probe.classCounts[1], probe.rows!)})`
        : ` (${probe.classCounts.map((c, i) => `${label(forest, i)}: ${formatCount(c)}`).join(', ')})`;
    } else if (probe.labelSum !== undefined) {
      balance = `, mean label ${formatNumber(probe.labelSum / Math.max(1, probe.rows ?? 1))}`;
    }
    // The most specific leaf: fewest rows (a singleton is a person), ties to the longest path.
    let worst: { tree: number; leaf: ProbedLeaf; group: number } | undefined;
    for (const pt of probe.trees) {
      for (const leaf of pt.leaves) {
        if (!worst || leaf.rows < worst.leaf.rows || (leaf.rows === worst.leaf.rows && leaf.box.length > worst.leaf.box.length)) worst = { tree: pt.tree, leaf, group: pt.group };
      }
    }
    const singletons = probe.trees.reduce((sum, t) => sum + t.leaves.filter((l) => l.rows === 1).length, 0);
    // XGBoost stores hessian sums as float32: past 2^24 rows they step by 2, 4, ..., so a count
    // there is good to half a step (a public 50,178,315-row model: root 50,178,316, leaves one off).
    const step = forest.library.name === 'xgboost' && (probe.rows ?? 0) > 2 ** 24 ? 2 ** (Math.floor(Math.log2(probe.rows!)) - 23) : 0;
    const exact = step > 0 ? `to within ${formatCount(step / 2)} (XGBoost stores them as float32, exact only up to 16,777,216)` : 'exactly';
    // Labels read under XGBoost's default lambda or alpha, which the file does not state, are not
    // "exact" beside the rows (sweep 18: "exactly ... 49 with label 1", then "assumed" below).
    const assumed = probe.parameters.lambda?.source === 'assumed' || probe.parameters.alpha?.source === 'assumed';
    const under = " under XGBoost's default regularisation (see below)";
    const exactness =
      probe.status === 'exact'
        ? assumed ? `${exact} for rows, and for labels${under}` : exact
        : probe.status === 'partial'
          ? `${exact} for rows, and for labels in all but ${plural(probe.undeterminedLeaves, 'leaf', 'leaves')}${assumed ? under : ''}`
          : exact;
    // Rows only: said after the leaves ("states, exactly for rows (labels not determined), how many
    // training rows fall in ..." read awkwardly, sweep 13).
    const rowsOnly = probe.status === 'rows-only' ? ' (not their labels)' : '';
    const singletonText = singletons > 0 ? ` ${plural(singletons, 'leaf', 'leaves')} ${singletons === 1 ? 'holds' : 'hold'} a single training row.` : '';
    const caveats = probe.caveats.length > 0 ? ` ${probe.caveats.map(capitalised).join(' ')}` : '';
    // Squared error: hessian 1 for every row in every tree, so not only the first tree counts rows.
    const allTrees = everyTreeRowCounts(forest);
    const everyTree = allTrees.ok && allTrees.trees > 1 ? ` With squared error every row's hessian is 1 in every tree, so all ${formatCount(allTrees.trees)} trees state the row count of each of their leaves (${formatCount(allTrees.leaves)} leaves in all), not only the first.` : '';
    // scikit-learn's boosted models are read as the XGBoost objective their loss is: named as themselves.
    const modelWords = forest.library.name === 'xgboost' ? `${probe.objective} model` : `${forest.estimator} (${LOSS_WORDS[probe.objective] ?? `read as XGBoost's ${probe.objective}`})`;
    return [
      {
        message: lead(
          `${k === 1 ? 'First tree counts' : `First ${k} trees count`} training rows per leaf: serve predictions, not the model.`,
          `${which} of this ${modelWords} ${k === 1 ? 'states' : 'state'}, ${exactness}, how many training rows fall in ${leaves === 1 ? 'its only leaf' : `each of ${k === 1 ? 'its' : 'their'} ${plural(leaves, 'leaf', 'leaves')}`}${rowsOnly}: ` +
            `${total}${balance}.` +
            // One leaf: its region is the whole space, so "the smallest" says nothing (sweep 10: "node 0 (the whole feature space)").
            (leaves === 1 ? '' : ` The smallest, ${describeLeaf(forest, worst!.leaf, probe, worst!.group, categories)}.`) +
            `${singletonText}${everyTree}${caveats}${resampledRowsText(forest)}`,
        ),
        at: { tree: worst!.tree, node: worst!.leaf.node },
        data: {
          status: probe.status,
          objective: probe.objective,
          rows: probe.rows ?? null,
          classDraws: probe.classDraws === true,
          classCounts: probe.classCounts ?? null,
          labelSum: probe.labelSum ?? null,
          singletonLeaves: singletons,
          everyTreeCounts: allTrees.ok,
          parameters: probe.parameters,
          trees: probe.trees.map((t) => ({
            tree: t.tree,
            group: t.group,
            rows: t.rows,
            leaves: t.leaves.map((l) => ({ node: l.nativeId, rows: l.rows, positives: l.positives ?? null, ...(l.labelSum !== undefined ? { labelSum: l.labelSum } : {}) })),
          })),
          caveats: probe.caveats,
        },
      },
    ];
  },
};
