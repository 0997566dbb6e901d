/** Names of a model's features, classes and nodes as rule messages print them (numbers: util/wording.ts). */
import type { Forest } from '../forest/schema';

export function featureName(forest: Forest, feature: number): string {
  const name = forest.features[feature]?.name ?? `x${feature}`;
  // A column named by a number reads as one in a condition ("60 < 1"): quoted (sweep 18).
  return /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(name) ? `"${name}"` : name;
}

export function formatClass(forest: Forest, index: number): string {
  const quoted = (label: string | number | boolean | undefined) => (typeof label === 'string' ? `'${label}'` : String(label));
  // A OneVsRestClassifier's member: its 0 and 1 are "not c" and c.
  if (forest.oneVsRest) return index === 1 ? quoted(forest.oneVsRest.positive) : `not ${quoted(forest.oneVsRest.positive)}`;
  return quoted(forest.classes[index]);
}

/** A node as messages name it: `tree 2 node 15`, or `node 15` in a model of one tree. */
export function nodeName(forest: Pick<Forest, 'trees'>, tree: number, node: number): string {
  return forest.trees.length === 1 ? `node ${node}` : `tree ${tree} node ${node}`;
}

/**
 * A sentence for findings that count training rows, when a Pipeline resampled them before the
 * model (`training.resampledBy`): the counts are of the resampled rows (sweep 19: a SMOTE
 * Pipeline's "7,778 training rows, 50% positive" had 4,088 real rows, 5% positive, and only a JSON
 * note said so). Empty otherwise.
 */
export function resampledRowsText(forest: { training?: Pick<Forest['training'], 'resampledBy'> }): string {
  const samplers = forest.training?.resampledBy;
  if (!samplers?.length) return '';
  return ` The Pipeline resamples the rows before the model (${samplers.join(', ')}): these are the rows it was fitted on, so they include the synthetic rows an over-sampler made and lack those an under-sampler dropped.`;
}
