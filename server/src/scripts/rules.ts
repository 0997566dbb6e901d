/**
 * The script rules: what a training script does that makes the model it saves give away its
 * training data, each with the quick fix that changes it. Only estimators the script saves are
 * reported (a model that never leaves the process leaks nothing through its file).
 */
import { basename } from 'node:path';
import { epsilonFor, leafSizeFor, type Advised } from './advice';
import type { EstimatorSite, SaveSite, ScriptModel } from './analyze';
import { insertSeedStripping, setKeyword, type TextEdit } from './edits';
import { describePath } from './paths';
import { lead } from '../rules/message';

export type ScriptRuleId = 'script-no-bootstrap' | 'script-stored-seeds' | 'script-small-leaves' | 'script-dp-epsilon' | 'script-dump-with-stats';

export interface ScriptFix {
  /** Short imperative, shown in the lightbulb menu and named in model diagnostics: "add bootstrap=True". */
  title: string;
  edits: TextEdit[];
  /** Part of "fix all": changes nothing about the model's accuracy that a person must weigh. */
  fixAll: boolean;
}

export interface ScriptFinding {
  rule: ScriptRuleId;
  message: string;
  /** Offsets of the code the finding is about. */
  start: number;
  end: number;
  estimator?: EstimatorSite;
  save: SaveSite;
  fix?: ScriptFix;
}

const FORESTS = new Set(['RandomForestClassifier', 'ExtraTreesClassifier', 'RandomForestRegressor', 'ExtraTreesRegressor']);
const TREES = new Set(['DecisionTreeClassifier', 'DecisionTreeRegressor']);

export interface CheckOptions {
  /** The model file a save writes, when known (for the advisor's values). */
  modelPathOf?: (save: SaveSite) => string | undefined;
}

function where(save: SaveSite): string {
  const path = describePath(save.path);
  return path === '<unknown path>' ? `saved (${save.method})` : `saved to ${path.replace(/^<script folder>\//, '')}`;
}

function literalValue(site: EstimatorSite, keyword: string): { known: boolean; value?: unknown } {
  if (site.call.args.some((a) => a.star === '**')) return { known: false }; // **params may set it
  const arg = site.call.args.find((a) => a.keyword === keyword);
  if (!arg) return { known: true, value: undefined };
  const v = arg.value;
  if (v.kind === 'const') return { known: true, value: v.value };
  if (v.kind === 'num') return { known: true, value: v.value };
  if (v.kind === 'str') return { known: true, value: v.value };
  return { known: false };
}

function advisedText(a: Advised): string {
  return a.source === 'advisor' ? 'the advisor\'s value for this model' : 'the documented default; run the advisor for a value fitted to this model';
}

export function checkScript(source: string, model: ScriptModel, options: CheckOptions = {}): ScriptFinding[] {
  const findings: ScriptFinding[] = [];
  const seen = new Set<string>();
  const push = (f: ScriptFinding) => {
    // one finding per rule and estimator (an estimator saved twice is reported at its first save)
    const key = `${f.rule}:${f.estimator?.call.start ?? f.save.call.start}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push(f);
  };
  for (const save of model.saves) {
    const site = save.estimator;
    const modelPath = options.modelPathOf?.(save);
    if (save.method === 'dump_model') {
      const stats = save.call.args.find((a) => a.keyword === 'with_stats');
      if (stats?.value.kind === 'const' && stats.value.value === true) {
        push({
          rule: 'script-dump-with-stats', start: stats.start, end: stats.end, estimator: site, save,
          message: lead(
            'dump_model(with_stats=True) exports training row counts: set with_stats=False.',
            `dump_model(with_stats=True) writes every node's cover (hessian sum) and gain: in the first tree, ` +
              `cover gives the exact training rows and positives of each leaf. Predictions need neither: dump with with_stats=False.`,
          ),
          fix: { title: 'set with_stats=False', edits: setKeyword(source, save.call, 'with_stats', 'False'), fixAll: true },
        });
      }
    }
    if (!site) continue;
    const ctor = site.call;
    const at = { start: ctor.start, end: ctor.open };
    if (site.library === 'sklearn' && (FORESTS.has(site.estimator) || TREES.has(site.estimator))) {
      const isForest = FORESTS.has(site.estimator);
      const bootstrap = literalValue(site, 'bootstrap');
      const bootstrapOn = isForest && bootstrap.known && (bootstrap.value === undefined ? site.estimator.startsWith('RandomForest') : bootstrap.value === true);
      if (!isForest) {
        push({
          rule: 'script-no-bootstrap', ...at, estimator: site, save,
          message: lead(
            "A single tree stores every training row's class count: train a bagged forest.",
            `${site.estimator} is ${where(save)}: a single tree is fitted on every training row, and each leaf stores ` +
              `how many rows of each class it holds. Train a forest with bootstrap=True (and strip its seeds) instead.`,
          ),
        });
      } else if (bootstrap.known && !bootstrapOn) {
        const arg = ctor.args.find((a) => a.keyword === 'bootstrap');
        push({
          rule: 'script-no-bootstrap', ...(arg ? { start: arg.start, end: arg.end } : at), estimator: site, save,
          message: lead(
            'A forest without bootstrap gives away its training set: add bootstrap=True.',
            `${site.estimator} without bootstrap is ${where(save)}: every tree sees every training row exactly once, ` +
              `so the stored counts usually pin down the whole training set. Add bootstrap=True (and strip the seeds before saving).`,
          ),
          fix: { title: 'add bootstrap=True', edits: setKeyword(source, ctor, 'bootstrap', 'True'), fixAll: true },
        });
      }
      if (bootstrapOn && (save.method === 'joblib.dump' || save.method === 'pickle.dump') && !save.seedsStripped) {
        push({
          rule: 'script-stored-seeds', start: save.call.start, end: save.call.open, estimator: site, save,
          message: lead(
            "Saved with the seeds that replay each tree's sample: strip them before saving.",
            `${site.estimator} is ${where(save)} with the seed of every tree: scikit-learn keeps them, and they replay ` +
              `each tree's bootstrap sample, so bagging gives no protection. Set the seeds to None before saving.`,
          ),
          fix: save.objectName
            ? { title: 'strip the stored seeds before saving', edits: insertSeedStripping(source, save.statement.start, save.objectName), fixAll: true }
            : undefined,
        });
      }
      const leaf = literalValue(site, 'min_samples_leaf');
      const advised = leafSizeFor(modelPath);
      const small = leaf.known && (leaf.value === undefined || (typeof leaf.value === 'number' && Number.isInteger(leaf.value) && leaf.value < advised.value));
      if (small) {
        const arg = ctor.args.find((a) => a.keyword === 'min_samples_leaf');
        push({
          rule: 'script-small-leaves', ...(arg ? { start: arg.start, end: arg.end } : at), estimator: site, save,
          message: lead(
            `min_samples_leaf=${leaf.value ?? 1} lets a leaf describe one person: raise it to ${advised.value}.`,
            `${site.estimator} is ${where(save)} with min_samples_leaf=${leaf.value ?? '1 (the default)'}: leaves may hold a ` +
              `single training row, which the file then describes exactly. Raise it to ${advised.value} (${advisedText(advised)}).`,
          ),
          fix: { title: `raise min_samples_leaf to ${advised.value}`, edits: setKeyword(source, ctor, 'min_samples_leaf', String(advised.value)), fixAll: false },
        });
      }
    }
    if (site.library === 'diffprivlib') {
      const eps = literalValue(site, 'epsilon');
      const advised = epsilonFor(modelPath);
      const value = eps.value === undefined ? 1.0 : eps.value; // diffprivlib's default epsilon is 1.0
      if (eps.known && typeof value === 'number' && value > advised.value) {
        const arg = ctor.args.find((a) => a.keyword === 'epsilon');
        push({
          rule: 'script-dp-epsilon', ...(arg ? { start: arg.start, end: arg.end } : at), estimator: site, save,
          message: lead(
            `epsilon=${value} still lets the noisy counts rebuild rows: lower it to ${advised.value}.`,
            `diffprivlib ${site.estimator} with epsilon=${value}${eps.value === undefined ? ' (the default)' : ''} is ${where(save)}: ` +
              `at this budget the noisy leaf counts still let a reconstruction rebuild rows specific to the training set. ` +
              `Lower it to ${advised.value} (${advisedText(advised)}).`,
          ),
          fix: { title: `lower epsilon to ${advised.value}`, edits: setKeyword(source, ctor, 'epsilon', String(advised.value)), fixAll: false },
        });
      }
    }
  }
  return findings.sort((a, b) => a.start - b.start);
}

export function scriptName(path: string): string {
  return basename(path);
}
