/**
 * The rule catalog: every finding the linter can produce, with its default severity and the page
 * that explains it. Rule ids are readable names; each has `docs/rules/<id>.md`.
 */
export const SEVERITIES = ['error', 'warning', 'information', 'hint', 'off'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface RuleMeta {
  id: string;
  defaultSeverity: Exclude<Severity, 'off'>;
  /** One line: what the rule is about. */
  title: string;
}

export const RULES = {
  'unsafe-pickle': {
    id: 'unsafe-pickle',
    defaultSeverity: 'error',
    title: 'The pickle names dangerous code (os, eval, subprocess, ...); loading it in Python would run that code',
  },
  'unknown-pickle-global': {
    id: 'unknown-pickle-global',
    defaultSeverity: 'warning',
    title: 'The pickle names globals the linter does not know; loading it in Python imports (and may call) them',
  },
  'unreadable-model': {
    id: 'unreadable-model',
    defaultSeverity: 'warning',
    title: 'The file could not be read as a tree-ensemble model',
  },
  'saved-data': {
    id: 'saved-data',
    defaultSeverity: 'warning',
    title: 'The file holds data (a pandas DataFrame or Series, a table-shaped array): the rows themselves, maybe the training set',
  },
  'no-tree-model': {
    id: 'no-tree-model',
    defaultSeverity: 'information',
    title: 'The file holds no tree model (a scaler, a vectorizer, a linear model, ...)',
  },
  'unsupported-model': {
    id: 'unsupported-model',
    defaultSeverity: 'information',
    title: 'The file holds a tree model this tool does not read yet (LightGBM, CatBoost, ...)',
  },
  'no-bootstrap': {
    id: 'no-bootstrap',
    defaultSeverity: 'warning',
    title: 'Every tree saw every training row exactly once',
  },
  'replayable-bootstrap': {
    id: 'replayable-bootstrap',
    defaultSeverity: 'warning',
    title: 'Bootstrap is on, but the stored seeds replay every tree\'s sample',
  },
  'singleton-leaf': {
    id: 'singleton-leaf',
    defaultSeverity: 'warning',
    title: 'Leaves that hold exactly one training row',
  },
  'exact-counts': {
    id: 'exact-counts',
    // A hint: true of every scikit-learn model, it states what the file holds; the leak itself is
    // in the other findings. VS Code lists hints in the hover and the report, not the Problems panel.
    defaultSeverity: 'hint',
    title: 'The file stores exact per-node class counts',
  },
  'no-training-counts': {
    id: 'no-training-counts',
    defaultSeverity: 'information',
    title: 'The trees store no training statistics (an XGBoost dump without stats): nothing was measured',
  },
  'first-tree-exposes-counts': {
    id: 'first-tree-exposes-counts',
    defaultSeverity: 'warning',
    title: 'A boosted model\'s first tree states the training rows and labels in each of its leaves',
  },
  'leaf-reveals-target': {
    id: 'leaf-reveals-target',
    defaultSeverity: 'warning',
    title: 'Regression leaves that hold one training row state its target exactly',
  },
  'exported-statistics': {
    id: 'exported-statistics',
    defaultSeverity: 'warning',
    title: 'An XGBoost dump carries cover and gain statistics',
  },
  'reconstructable-training-set': {
    id: 'reconstructable-training-set',
    // The level follows the certified share (thresholds in settings and CLI flags); this is the
    // level of a typical partial certificate, listed for the rule table and SARIF.
    defaultSeverity: 'warning',
    title: 'Training rows can be rebuilt from the model, and how many of them are proven',
  },
  'membership-exposure': {
    id: 'membership-exposure',
    defaultSeverity: 'warning',
    title: 'The model proves that candidates were, or were not, in its training data (CLI --membership, or the sidecar\'s membership entry)',
  },
  // Training-script rules (server/src/scripts/): what a script does that makes its saved model leak.
  'script-no-bootstrap': {
    id: 'script-no-bootstrap',
    defaultSeverity: 'warning',
    title: 'A training script saves a forest without bootstrap, or a single decision tree',
  },
  'script-stored-seeds': {
    id: 'script-stored-seeds',
    defaultSeverity: 'warning',
    title: 'A training script saves a bagged forest with the seeds that replay its samples',
  },
  'script-small-leaves': {
    id: 'script-small-leaves',
    defaultSeverity: 'information',
    title: 'A training script saves trees whose leaves may hold a single training row',
  },
  'script-dp-epsilon': {
    id: 'script-dp-epsilon',
    defaultSeverity: 'warning',
    title: 'A training script saves a differentially private forest with a high epsilon',
  },
  'script-dump-with-stats': {
    id: 'script-dump-with-stats',
    defaultSeverity: 'warning',
    title: 'A training script dumps an XGBoost model with its cover and gain statistics',
  },
} as const satisfies Record<string, RuleMeta>;

export type RuleId = keyof typeof RULES;
export const RULE_IDS = Object.keys(RULES) as RuleId[];

export function isRuleId(value: string): value is RuleId {
  return Object.prototype.hasOwnProperty.call(RULES, value);
}

/** Relative path of a rule's documentation page inside the package. */
export function ruleDocPath(id: RuleId): string {
  return `docs/rules/${id}.md`;
}
