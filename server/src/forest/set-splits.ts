/**
 * Categorical splits: a split that sends a set of categories left (scikit-learn's histogram
 * boosting with `categorical_features`, the default for a pandas category column since 1.6;
 * XGBoost with `enable_categorical`). The IR splits on thresholds, so each distinct (feature, set,
 * side of a missing value) becomes a 0/1 feature of its own: 0 for a row the split sends left
 * (`<= 0.5` / `< 0.5`), 1 for one it sends right, named `x ∉ {a, b}` where the file lists the
 * categories sent left (scikit-learn) and `x ∈ {a, b}` where it lists those sent right (XGBoost).
 * A missing value takes the side the split states, which is part of the key, so every split on one
 * such feature sends a missing value the same way and the feature's 0 or 1 stands for it.
 *
 * What this reading keeps and loses: every count, cover and leaf is the model's own, so the
 * findings on counts (N, exact counts, one-row leaves, first-tree probing) hold as for any model,
 * and a row's leaf in every tree is where the model sends it. The 0/1 features of one categorical
 * column are not tied to each other: the reconstruction may combine them in ways no single
 * category does. That only widens what it searches (every real row is still one of its solutions),
 * so what it proves of every solution holds of the real rows; an estimated row may be impossible.
 */

/** One categorical split as a reader finds it. */
export interface SetSplit {
  /** Index of the reader's tree and node. */
  tree: number;
  node: number;
  /** The categorical column (the model's feature index). */
  feature: number;
  /** The categories (integer codes) the file lists for the split, ascending. */
  categories: readonly number[];
  /** Where the listed categories go (scikit-learn lists those sent left, XGBoost those sent right); the others go the other way. */
  side: 'left' | 'right';
  /** Where a missing value goes. */
  missingLeft: boolean;
}

/** What a set-split feature stands for (the IR's `Feature.setOf`). */
export interface SetOf {
  feature: number;
  categories: number[];
  side: 'left' | 'right';
  missingLeft: boolean;
}

export interface SetSplitFeatures {
  /** The features to append after the model's own, in index order. */
  features: { name: string; kind: 'binary'; setOf: SetOf }[];
  /** Per split (same order as given): its feature's index (the model's features count + k). */
  featureOf: number[];
  /** The threshold to store at each such node: 0.5, between the 0 (in the set) and the 1. */
  threshold: number;
  note: string;
}

/**
 * The 0/1 features for `splits` over a model of `names.length` features. `categoryName(f, c)` names
 * category code c of column f (its code by default).
 */
export function setSplitFeatures(splits: readonly SetSplit[], names: readonly string[], categoryName: (feature: number, code: number) => string = (_, c) => String(c)): SetSplitFeatures {
  const index = new Map<string, number>();
  const features: SetSplitFeatures['features'] = [];
  const featureOf = splits.map((split) => {
    const key = `${split.feature}|${split.side}|${split.categories.join(',')}|${split.missingLeft ? 'L' : 'R'}`;
    let k = index.get(key);
    if (k === undefined) {
      k = features.length;
      index.set(key, k);
      const setOf: SetOf = { feature: split.feature, categories: [...split.categories], side: split.side, missingLeft: split.missingLeft };
      features.push({ name: setSplitName(names, setOf, categoryName), kind: 'binary', setOf });
    }
    return names.length + k;
  });
  // Two features of one set that differ only in a missing value's side: the name says which.
  const seen = new Map<string, number>();
  for (const f of features) seen.set(f.name, (seen.get(f.name) ?? 0) + 1);
  [...index.entries()].forEach(([key, k]) => {
    if ((seen.get(features[k].name) ?? 0) > 1) features[k].name += key.endsWith('L') ? ' (missing: 0)' : ' (missing: 1)';
  });
  // Columns counted, not named: a Pipeline may name them after this (pipeline-model.ts).
  const columns = new Set(splits.map((s) => s.feature)).size;
  const note =
    `${splits.length} categorical split${splits.length === 1 ? '' : 's'} (a set of categories sent one way) on ${columns} column${columns === 1 ? '' : 's'}, read as ${features.length} 0/1 feature${features.length === 1 ? '' : 's'} of their own ` +
    "(`x ∉ {...}` or `x ∈ {...}`: 1 for a row the split sends right); the counts and every row's leaves are the model's own, but those features are not tied to one another, so an estimated row may combine them as no category does";
  return { features, featureOf, threshold: 0.5, note };
}

/**
 * The columns a model reads, as its user counts them: the features less the 0/1 features that stand
 * for a categorical split of one of them (a public HistGradientBoostingClassifier of 4 columns read
 * as "23 features", 19 of them category sets of one column).
 */
export function inputColumnCount(features: readonly { setOf?: unknown }[]): number {
  return features.filter((f) => !f.setOf).length;
}

/**
 * A set-split feature's name: `work_type ∉ {0, 3}` for a set sent left, `work_type ∈ {0, 3}` for
 * one sent right (1 is the right side either way).
 */
export function setSplitName(names: readonly string[], setOf: SetOf, categoryName: (feature: number, code: number) => string = (_, c) => String(c)): string {
  const name = names[setOf.feature] ?? `x${setOf.feature}`;
  return `${name} ${setOf.side === 'left' ? '∉' : '∈'} {${setOf.categories.map((c) => categoryName(setOf.feature, c)).join(', ')}}`;
}

/**
 * Category names from the encoders a Pipeline's input goes through (an OrdinalEncoder's code c is
 * its c-th category), the code itself where there is none.
 */
export function ordinalCategoryName(input: { features: readonly { ops: readonly { op: string; categories?: readonly unknown[] }[] }[] } | undefined): (feature: number, code: number) => string {
  return (feature, code) => {
    const ordinal = input?.features[feature]?.ops.find((op) => op.op === 'ordinal');
    const value = ordinal?.categories?.[code];
    return value === undefined || value === null ? String(code) : String(value);
  };
}

/**
 * The features renamed after their columns were (a Pipeline's names): each set-split feature's
 * name from its column's new name and categories, its "(missing: ...)" mark kept.
 */
export function renamedSetSplits<F extends { name: string; setOf?: SetOf }>(features: readonly F[], categoryName?: (feature: number, code: number) => string): F[] {
  const names = features.map((f) => f.name);
  return features.map((f) => {
    if (!f.setOf) return f;
    const mark = / \(missing: [01]\)$/.exec(f.name)?.[0] ?? '';
    return { ...f, name: setSplitName(names, f.setOf, categoryName) + mark };
  });
}

/** A set-split feature's value for a row whose categorical column holds `category` (null or NaN: missing). */
export function setSplitValue(setOf: Pick<SetOf, 'categories' | 'side' | 'missingLeft'>, category: number | null): 0 | 1 {
  if (category === null || Number.isNaN(category)) return setOf.missingLeft ? 0 : 1;
  const listed = setOf.categories.includes(category);
  return listed === (setOf.side === 'right') ? 1 : 0;
}

/**
 * Rows of the model's own columns (the features without `setOf`, in order) completed with the
 * set-split features' values, computed from their columns. Rows of another length pass unchanged.
 */
export function withSetSplitValues<T extends { values: readonly (number | null)[] }>(features: readonly { setOf?: SetOf }[], rows: T[]): T[] {
  const own = features.filter((f) => !f.setOf).length;
  if (own === features.length) return rows;
  return rows.map((row) => {
    if (row.values.length !== own) return row;
    const values = [...row.values];
    for (let f = own; f < features.length; f++) values.push(setSplitValue(features[f].setOf!, row.values[features[f].setOf!.feature]));
    return { ...row, values };
  });
}
