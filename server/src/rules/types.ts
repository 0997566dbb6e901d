/** What a rule produces and what it is given. Rules are pure: (model, analyses) -> findings. */
import type { Forest } from '../forest/schema';
import type { ModelPath, SourceRange } from '../formats/types';
import type { ReplayCheck } from '../attacks/bootstrap-replay';
import type { FirstTreeProbe } from '../attacks/first-tree-probe';
import type { RuleId, Severity } from './catalog';
import type { Categories } from './conditions';

export interface FindingLocation {
  /** Tree and node the finding is about, when it is about one. */
  tree?: number;
  node?: number;
  /** Range in a text model file; absent for binary files (the finding is about the whole file). */
  range?: SourceRange;
  /**
   * Which model of the file the finding is about, when the file holds several (the Python
   * expression that reaches it, `model.named_estimators_["gb"]`); absent for the file's primary model.
   */
  model?: string;
  /**
   * The file's other models the same rule fired for, when their findings were folded into this one
   * (linter/fold-findings.ts: a rule firing for three or more models of one file).
   */
  alsoIn?: string[];
}

export interface Finding {
  rule: RuleId;
  severity: Exclude<Severity, 'off'>;
  message: string;
  location: FindingLocation;
  /** Numbers behind the message, for JSON consumers and the report. */
  data?: Record<string, unknown>;
}

/** A rule's output before severities from settings are applied and locations resolved. */
export interface FindingDraft {
  /** A first line of at most 80 characters (what leaks, what to do), then the detail: see message.ts. */
  message: string;
  at?: ModelPath;
  data?: Record<string, unknown>;
}

export interface RuleContext {
  forest: Forest;
  /** Bootstrap replay verdict, computed once per model (see attacks/bootstrap-replay.ts). */
  replay: ReplayCheck;
  /** First-tree probe of a boosted model, computed once per model by the linter; rules run it when absent. */
  probe?: FirstTreeProbe;
  /** One-hot features and the category each encodes (conditions.ts), for conditions people read. */
  categories?: Categories;
}

export interface ModelRule {
  id: RuleId;
  check(context: RuleContext): FindingDraft[];
}
