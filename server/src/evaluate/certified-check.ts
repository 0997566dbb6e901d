/**
 * The reconstruction's proofs checked against the true training rows (`--training-data`): every
 * row it states as proven (a certified row, or a row with proven values) must be a distinct true
 * row, inside the row's proven box and, for a certified row, with its label. Rows proven alike
 * share one group; a maximum flow pairs the groups' rows with distinct true rows (each group's
 * rows with as many true rows inside its box). A proof the truth contradicts is a bug of this
 * tool: the report says so in plain words, so that nobody reads it as a finding about the model.
 *
 * Compared as the model compares: a value cast to float32 against the interval's ends, lower
 * exclusive and upper inclusive for `x <= threshold` (scikit-learn), the other way round for
 * `x < threshold` (XGBoost); HistGradientBoosting's values as they are, in float64 (forest/value-precision.ts:
 * a diabetes row at a threshold's exact value read "a bug of this tool" when cast). A proven target (regression) must match to within 1e-4 of its size
 * (XGBoost computes it from float32 leaf weights). A row's missing marks are estimates, never
 * read as proven. A true value that is missing (NaN) fits an interval open at either end (a split sends a missing value one way,
 * with the values below its threshold or above it: HistGradientBoosting's split at float32's
 * largest value leaves the interval above it to the rows missing the feature), never a closed one.
 */
import type { ReconstructedRow } from '../attacks/reconstruction/types';
import type { Forest } from '../forest/schema';
import { valueCast } from '../forest/value-precision';
import { targetFunction } from '../forest/target-transform';
import type { EvaluatedRow } from './metrics';

export interface CertifiedCheck {
  /** Rows the reconstruction states as proven (certified, or with proven values). */
  proven: number;
  /** Of them, the most that pair with distinct true rows inside their proven boxes (with their label where it is proven); null when not checked. */
  held: number | null;
  /** Why the check was not made (then `held` is null). */
  problem?: string;
  /** What the check left out (a transformed target it cannot bring to the regressor's scale). */
  note?: string;
  /** The true rows were read as the input of the steps before the model and sent through them (the CLI sets it when proofs fail). */
  throughSteps?: true;
}

/** Box-row pairs tested at most (each a pass over the features, most ending early): about 4 s (48,842 Adult rows in 1,148 boxes, 56M pairs: 2.2 s). */
const MAX_TESTS = 100_000_000;
/** Pairs held for the flow at most (Int32 each). */
const MAX_PAIRS = 20_000_000;

interface ProvenGroup {
  size: number;
  /** Per feature: the proven interval, a proven value, or undefined (not proven). */
  bounds: (readonly [number, number] | number | undefined)[];
  /** The proven label, if any. */
  label?: string | number | boolean;
}

/**
 * A TransformedTargetRegressor's regressor proves its targets in the transformed scale: the check
 * applies the named function to the true targets (forest/target-transform.ts; a log-target
 * forest's 442 proven rows read "0 held, a bug of this tool" against y itself).
 */
export function checkCertifiedRows(
  forest: Pick<Forest, 'splitRule' | 'classes' | 'estimator' | 'targetTransform'>,
  reconstruction: readonly ReconstructedRow[],
  given: readonly EvaluatedRow[],
): CertifiedCheck | undefined {
  const groups = provenGroups(reconstruction);
  const proven = groups.reduce((n, g) => n + g.size, 0);
  if (proven === 0) return undefined;
  // Targets a TransformedTargetRegressor transformed: the truth in the regressor's scale, or, for a
  // transform the file does not name as a function (a fitted StandardScaler), no target compared.
  const transform = targetFunction(forest);
  const truth = forest.targetTransform === undefined ? given : given.map((row) => ({ ...row, label: transform && typeof row.label === 'number' ? transform(row.label) : undefined }));
  const targetsUnchecked = forest.targetTransform !== undefined && !transform ? `the targets were transformed by ${forest.targetTransform} before fitting, which the file does not state as a function: only the boxes were checked` : undefined;
  const less = forest.splitRule === 'less';
  const regression = forest.classes.length === 0;
  const cast = valueCast(forest);
  const truthValues = truth.map((row) => row.values.map((v) => (v === null || Number.isNaN(v) ? null : cast(v))));
  // Rows proven as values only (0/1 models: the papers' Adult, 48,842 rows in thousands of cells)
  // are looked up by those values instead of tested against every true row.
  const byValues = new ValueIndex(truthValues, truth, cast);
  const indexed = (g: ProvenGroup) => !regression && ValueIndex.applies(g);
  const tested = groups.filter((g) => !indexed(g)).length;
  if (tested * truth.length > MAX_TESTS) {
    return { proven, held: null, problem: `${proven.toLocaleString('en-US')} proven rows in ${groups.length.toLocaleString('en-US')} boxes against ${truth.length.toLocaleString('en-US')} true rows: too many pairs to check` };
  }
  // Each group's true rows, in one flat list (CSR).
  const start = new Int32Array(groups.length + 1);
  const pairs: number[] = [];
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g];
    if (indexed(group)) {
      for (const t of byValues.candidates(group)) if (holds(group, truthValues[t], truth[t].label)) pairs.push(t);
    } else {
      for (let t = 0; t < truth.length; t++) {
        if (holds(group, truthValues[t], truth[t].label)) pairs.push(t);
      }
    }
    if (pairs.length > MAX_PAIRS) return { proven, held: null, problem: `the proven boxes hold more than ${MAX_PAIRS.toLocaleString('en-US')} (box, true row) pairs: too many to check` };
    start[g + 1] = pairs.length;
  }
  return { proven, held: maximumFlow(groups, start, Int32Array.from(pairs), truth.length), ...(targetsUnchecked ? { note: targetsUnchecked } : {}) };

  function holds(group: ProvenGroup, values: readonly (number | null)[], label: EvaluatedRow['label']): boolean {
    if (group.label !== undefined && label !== undefined && label !== '' && !sameLabel(group.label, label, regression)) return false;
    for (let f = 0; f < group.bounds.length; f++) {
      const bound = group.bounds[f];
      if (bound === undefined) continue;
      const value = values[f];
      if (typeof bound === 'number') {
        if (value === null || cast(bound) !== value) return false;
        continue;
      }
      const [low, high] = bound;
      if (value === null) {
        if (low !== -Infinity && high !== Infinity) return false;
        continue;
      }
      if (less ? !(value >= low && value < high) : !(value > low && value <= high)) return false;
    }
    return true;
  }
}

/**
 * True rows by their values on a set of features (one map per set, built when first asked): the
 * candidates of a group proven as values only. `holds` still checks each candidate.
 */
class ValueIndex {
  private readonly maps = new Map<string, Map<string, number[]>>();
  constructor(
    private readonly values: readonly (readonly (number | null)[])[],
    private readonly rows: readonly EvaluatedRow[],
    private readonly cast: (value: number) => number,
  ) {}

  /** A group every proven feature of which is a value (no interval, no missing value), with a class (labels compared as text). */
  static applies(group: ProvenGroup): boolean {
    return group.label !== undefined && group.bounds.every((b) => b === undefined || typeof b === 'number');
  }

  candidates(group: ProvenGroup): readonly number[] {
    const features = group.bounds.flatMap((b, f) => (b === undefined ? [] : [f]));
    const pattern = features.join(',');
    let map = this.maps.get(pattern);
    if (!map) {
      map = new Map();
      this.values.forEach((row, t) => {
        const key = this.key(features.map((f) => row[f]), this.rows[t].label);
        const list = map!.get(key);
        if (list) list.push(t);
        else map!.set(key, [t]);
      });
      this.maps.set(pattern, map);
    }
    return map.get(this.key(features.map((f) => this.cast(group.bounds[f] as number)), group.label)) ?? [];
  }

  private key(values: readonly (number | null)[], label: unknown): string {
    return `${values.join(',')}|${String(label)}`;
  }
}

function sameLabel(proven: string | number | boolean, truth: string | number | boolean, regression: boolean): boolean {
  if (!regression) return proven === truth;
  const a = Number(proven);
  const b = Number(truth);
  // A classifier read as row counts (scikit-learn's gradient boosting) has no classes in the IR but
  // keeps its labels, text ones too: compared as text, not as targets (a Pipeline's
  // GradientBoostingClassifier with labels 'class_a' read "0 of 60 proven rows" held).
  if (typeof proven === 'string' && !Number.isFinite(a)) return proven === String(truth);
  return Number.isFinite(a) && Number.isFinite(b) && Math.abs(a - b) <= 1e-4 * Math.max(1, Math.abs(b));
}

/** Rows with a proof, grouped by what is proven (identical boxes and labels are one group). */
function provenGroups(reconstruction: readonly ReconstructedRow[]): ProvenGroup[] {
  const byKey = new Map<string, ProvenGroup>();
  for (const row of reconstruction) {
    const provenValues = row.certified ? undefined : row.certifiedValues;
    if (!row.certified && !provenValues?.some((x) => x)) continue;
    const bounds: ProvenGroup['bounds'] = row.values.map((value, f) => {
      if (provenValues && !provenValues[f]) return undefined;
      // A row's missing marks are the matching's estimate (boosting-hessians), never proven: what a
      // certified row proves of the feature is its interval (a leaf's region, open where a missing
      // value reaches the leaf). Read as proven, 7 of 600 rows of a fixture with 30% of bmi missing
      // held no true row (stop 36).
      if (row.missing?.[f] && !row.intervals?.[f]) return undefined;
      const interval = row.intervals?.[f];
      if (row.intervals) return interval ? ([interval[0] ?? -Infinity, interval[1] ?? Infinity] as const) : undefined;
      return value === null ? undefined : value;
    });
    const group: ProvenGroup = { size: 1, bounds, ...(row.certified ? { label: row.label } : {}) };
    const key = JSON.stringify([group.bounds.map((b) => (Array.isArray(b) ? [String(b[0]), String(b[1])] : b ?? null)), row.certified ? [typeof row.label, String(row.label)] : null]);
    const seen = byKey.get(key);
    if (seen) seen.size++;
    else byKey.set(key, group);
  }
  return [...byKey.values()];
}

/**
 * The most proven rows that pair with distinct true rows: a flow from each group (capacity its
 * size) to the true rows it holds (capacity 1 each), by augmenting paths (breadth first, so each
 * search is linear in the pairs).
 */
function maximumFlow(groups: readonly ProvenGroup[], start: Int32Array, pairs: Int32Array, truthRows: number): number {
  const matchOf = new Int32Array(truthRows).fill(-1);
  const used = new Int32Array(groups.length);
  let flow = 0;
  // Greedy first, groups with the fewest true rows first: most pairs are found without a search.
  const order = groups.map((_, g) => g).sort((a, b) => start[a + 1] - start[a] - (start[b + 1] - start[b]));
  for (const g of order) {
    for (let k = start[g]; k < start[g + 1] && used[g] < groups[g].size; k++) {
      const t = pairs[k];
      if (matchOf[t] === -1) {
        matchOf[t] = g;
        used[g]++;
        flow++;
      }
    }
  }
  // Then augmenting paths from groups with rows left: group -> true row -> the group holding it -> ...
  const cameFrom = new Int32Array(groups.length);
  const viaRow = new Int32Array(groups.length);
  for (const g of order) {
    while (used[g] < groups[g].size) {
      cameFrom.fill(-2);
      cameFrom[g] = -1;
      const queue = [g];
      let end = -1;
      let endRow = -1;
      for (let q = 0; q < queue.length && end < 0; q++) {
        const at = queue[q];
        for (let k = start[at]; k < start[at + 1]; k++) {
          const t = pairs[k];
          const holder = matchOf[t];
          if (holder === -1) {
            end = at;
            endRow = t;
            break;
          }
          if (cameFrom[holder] !== -2) continue;
          cameFrom[holder] = at;
          viaRow[holder] = t;
          queue.push(holder);
        }
      }
      if (end < 0) break;
      // Shift along the path: each group on it takes the row the next one gives up.
      let row = endRow;
      let at = end;
      for (;;) {
        const previous = matchOf[row];
        matchOf[row] = at;
        if (previous !== -1) used[previous]--;
        used[at]++;
        if (cameFrom[at] === -1) break;
        row = viaRow[at];
        at = cameFrom[at];
      }
      flow++;
    }
  }
  return flow;
}
