/**
 * XGBoost `dump_model` / `get_dump` output, text and JSON, into the IR. A dump is meant for people
 * to read; with `with_stats=True` it also carries each node's `cover` (hessian sum) and `gain`,
 * which is what makes it a leak (rules/exported-statistics.ts).
 *
 * A dump states neither the objective nor the base score nor the feature count: the IR records
 * `objective: unknown`, XGBoost's default base score 0.5 with `baseScoreStated: false`, and the
 * features the dump names (`f3` is feature 3; other names are numbered in order of first use).
 *
 * Text lines look like (tabs give the depth; `missing` says where a missing value goes):
 *   booster[0]:
 *   0:[f0<-0.0299] yes=1,no=2,missing=1,gain=43.03,cover=12.5
 *   	1:leaf=-0.52,cover=6.5
 */
import { findNodeAtLocation, parseTree, type Node as JsonNode } from 'jsonc-parser';
import type { ForestInput, Tree } from '../../forest/schema';
import type { ModelPath, SourceRange, UnreadableReason } from '../types';
import { parseJsonWithNaN, withFiniteTokens } from './json-nan';
import { Refusal, unlessRefused } from './refusal';
import { toIrTree, type NativeTree } from './tree';

export type DumpBuild =
  | { ok: true; forest: ForestInput; notes: string[]; locate: (path: ModelPath) => SourceRange | undefined }
  | { ok: false; reason: UnreadableReason; detail: string };

/** One node as a dump gives it, keyed by its id. */
interface DumpNode {
  id: number;
  feature?: string;
  threshold?: number;
  yes?: number;
  no?: number;
  missing?: number;
  leaf?: number;
  cover?: number;
  gain?: number;
}

const NUMBER = String.raw`[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf|nan)`;
/** Exported for the grammar test: the same shapes the TextMate grammar highlights. */
export const TEXT_LINES = {
  booster: /^booster\[(\d+)\]:?\s*$/,
  split: new RegExp(String.raw`^(\t*)(\d+):\[([^\]<]+)<(${NUMBER})\] yes=(\d+),no=(\d+),missing=(\d+)((?:,[a-z_]+=${NUMBER})*)\s*$`),
  leaf: new RegExp(String.raw`^(\t*)(\d+):leaf=(${NUMBER})((?:,[a-z_]+=${NUMBER})*)\s*$`),
  /** Splits the dump writes for indicator (`[f1]`) and categorical (`[f1:{2,3}]`) features. */
  otherSplit: /^(\t*)(\d+):\[[^\]]*\] yes=/,
};

/** A number as a text dump prints it: C's `inf`, `-inf` and `nan` included (Number() reads "inf" as NaN). */
function dumpNumber(text: string): number {
  const bare = text.replace(/^[-+]/, '');
  if (bare === 'inf') return text.startsWith('-') ? -Infinity : Infinity;
  return Number(text);
}

function stats(text: string, node: DumpNode): void {
  for (const part of text.split(',')) {
    if (!part) continue;
    const [key, value] = part.split('=');
    if (key === 'cover') node.cover = Number(value);
    else if (key === 'gain') node.gain = Number(value);
  }
}

/**
 * Feature ids from the names a dump uses: `f3` is feature 3 when every name has that form (no
 * feature names were set); otherwise names are numbered in order of first use.
 */
class FeatureNames {
  readonly names: string[] = [];
  private readonly index = new Map<string, number>();

  constructor(all: readonly string[]) {
    const numbered = all.every((name) => /^f\d{1,6}$/.test(name));
    for (const name of all) {
      if (this.index.has(name)) continue;
      const id = numbered ? Number(name.slice(1)) : this.index.size;
      this.index.set(name, id);
      this.names[id] = name;
    }
  }

  id(name: string): number {
    return this.index.get(name) ?? -1;
  }
}

const namesIn = (trees: Map<number, DumpNode>[]) => trees.flatMap((nodes) => [...nodes.values()].flatMap((n) => (n.feature === undefined ? [] : [n.feature])));

/** Turns the nodes of one dumped tree into a native tree (columns indexed by dump ids). */
function nativeOf(nodes: Map<number, DumpNode>, features: FeatureNames, t: number): NativeTree {
  let size = 0;
  for (const id of nodes.keys()) size = Math.max(size, id + 1);
  if (size > 1e7) throw new Refusal('corrupt', `tree ${t} has a node id ${size - 1}`);
  const left = new Array<number>(size).fill(-1);
  const right = new Array<number>(size).fill(-1);
  const feature = new Array<number>(size).fill(-1);
  const threshold = new Array<number>(size).fill(0);
  const defaultLeft = new Array<boolean>(size).fill(false);
  const leafValue = new Array<number>(size).fill(0);
  const cover = new Array<number>(size).fill(0);
  const gain = new Array<number>(size).fill(0);
  let hasCover = true;
  let hasGain = false;
  for (const node of nodes.values()) {
    if (node.leaf === undefined) {
      if (node.yes === undefined || node.no === undefined || node.feature === undefined || node.threshold === undefined) throw new Refusal('corrupt', `tree ${t} node ${node.id} is incomplete`);
      if (!nodes.has(node.yes) || !nodes.has(node.no)) throw new Refusal('truncated', `tree ${t} node ${node.id} names children ${node.yes} and ${node.no}, which the dump does not contain`);
      left[node.id] = node.yes;
      right[node.id] = node.no;
      feature[node.id] = features.id(node.feature);
      threshold[node.id] = node.threshold;
      defaultLeft[node.id] = node.missing === node.yes;
      if (node.gain !== undefined) hasGain = true;
    } else {
      leafValue[node.id] = node.leaf;
    }
    if (node.cover === undefined) hasCover = false;
    else cover[node.id] = node.cover;
    if (node.gain !== undefined) gain[node.id] = node.gain;
  }
  if (!nodes.has(0)) throw new Refusal('corrupt', `tree ${t} has no root (node 0)`);
  return {
    size,
    left,
    right,
    feature,
    threshold,
    defaultLeft,
    leafValue,
    group: 0,
    ...(hasCover ? { cover } : {}),
    ...(hasGain ? { gain } : {}),
  };
}

function forestOf(natives: NativeTree[], features: FeatureNames): { forest: ForestInput; nodeIds: (number[] | undefined)[] } {
  const trees: Tree[] = [];
  const nodeIds: (number[] | undefined)[] = [];
  natives.forEach((native, t) => {
    const built = toIrTree(native, 1);
    if (!built.ok) throw new Refusal('corrupt', `tree ${t}: ${built.problem}`);
    trees.push(built.tree);
    nodeIds.push(built.tree.boosting?.nodeId);
  });
  if (trees.length === 0) throw new Refusal('not-a-model', 'the dump contains no trees');
  const featureCount = features.names.length;
  const forest: ForestInput = {
    library: { name: 'xgboost' },
    estimator: 'Booster',
    // A dump does not say what the trees predict; read them as a one-output model.
    task: 'regression',
    classes: [],
    features: Array.from({ length: featureCount }, (_, f) => ({ name: features.names[f] ?? `f${f}` })),
    splitRule: 'less',
    hyperParameters: {},
    training: { bootstrap: false },
    trees,
    boosting: { objective: 'unknown', baseScore: [0.5], baseScoreStated: false, outputGroups: 1, source: 'dump' },
  };
  return { forest, nodeIds };
}

function positionOf(lineStarts: number[], offset: number): { line: number; character: number } {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: offset - lineStarts[lo] };
}

const DUMP_NOTES = ['objective and base score: not stated in a dump (base score 0.5 assumed)'];

/** `dump_model(..., dump_format='text')` or the concatenation of `get_dump()` strings. */
export function readTextDump(text: string): DumpBuild {
  return unlessRefused((): DumpBuild => {
    const lines = text.split('\n');
    const trees: Map<number, DumpNode>[] = [];
    const lineOf: Map<number, number>[] = [];
    let current: Map<number, DumpNode> | undefined;
    let currentLines: Map<number, number> | undefined;
    const startTree = () => {
      current = new Map();
      currentLines = new Map();
      trees.push(current);
      lineOf.push(currentLines);
    };
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].replace(/\r$/, '');
      if (line.trim() === '') continue;
      if (TEXT_LINES.booster.test(line)) {
        startTree();
        continue;
      }
      let node: DumpNode;
      const split = TEXT_LINES.split.exec(line);
      const leaf = split ? null : TEXT_LINES.leaf.exec(line);
      if (split) {
        node = { id: Number(split[2]), feature: split[3], threshold: dumpNumber(split[4]), yes: Number(split[5]), no: Number(split[6]), missing: Number(split[7]) };
        stats(split[8], node);
      } else if (leaf) {
        node = { id: Number(leaf[2]), leaf: Number(leaf[3]) };
        stats(leaf[4], node);
      } else if (TEXT_LINES.otherSplit.test(line)) {
        throw new Refusal('unsupported-estimator', `line ${i + 1} splits on an indicator or categorical feature; only numeric splits are read`);
      } else {
        throw new Refusal(i === lines.length - 1 ? 'truncated' : 'corrupt', `line ${i + 1} is not a dump line: ${JSON.stringify(line.slice(0, 80))}`);
      }
      // get_dump() strings have no `booster[k]:` header: a new root starts a new tree.
      if (!current || (node.id === 0 && current.has(0))) startTree();
      if (current!.has(node.id)) throw new Refusal('corrupt', `line ${i + 1} repeats node ${node.id}`);
      current!.set(node.id, node);
      currentLines!.set(node.id, i);
    }
    const features = new FeatureNames(namesIn(trees));
    const natives = trees.map((nodes, t) => nativeOf(nodes, features, t));
    const { forest } = forestOf(natives, features);
    const locate = (path: ModelPath): SourceRange | undefined => {
      if (path.tree === undefined) return undefined;
      const lines_ = lineOf[path.tree];
      if (!lines_) return undefined;
      const ids = forest.trees[path.tree].boosting?.nodeId;
      const id = path.node === undefined ? 0 : ids?.[path.node] ?? path.node;
      const line = lines_.get(id);
      if (line === undefined) return undefined;
      const content = lines[line].replace(/\r$/, '');
      const indent = content.length - content.replace(/^\t+/, '').length;
      return { start: { line, character: indent }, end: { line, character: content.length } };
    };
    return { ok: true, forest, notes: [...DUMP_NOTES], locate };
  });
}

/** `dump_model(..., dump_format='json')`: an array of nested node objects. */
export function readJsonDump(text: string): DumpBuild {
  return unlessRefused((): DumpBuild => {
    let json: unknown;
    try {
      // `inf` and `nan` are bare tokens in a JSON dump (json-nan.ts).
      json = parseJsonWithNaN(text);
    } catch (error) {
      const message = (error as Error).message;
      throw new Refusal(/end of JSON input|Unterminated/i.test(message) ? 'truncated' : 'corrupt', `the file is not valid JSON (${message})`);
    }
    if (!Array.isArray(json)) throw new Refusal('not-a-model', 'a JSON dump is an array of trees');
    const paths: Map<number, (string | number)[]>[] = [];
    const collected = json.map((root, t) => {
      const nodes = new Map<number, DumpNode>();
      const pathOf = new Map<number, (string | number)[]>();
      paths.push(pathOf);
      const stack: { value: unknown; path: (string | number)[]; depth: number }[] = [{ value: root, path: [t], depth: 0 }];
      while (stack.length > 0) {
        const { value, path, depth } = stack.pop()!;
        if (depth > 1000) throw new Refusal('corrupt', `tree ${t} nests deeper than 1000 levels`);
        if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Refusal('corrupt', `tree ${t}: a node is not an object`);
        const v = value as Record<string, unknown>;
        const id = v.nodeid;
        if (typeof id !== 'number' || !Number.isInteger(id) || id < 0) throw new Refusal('corrupt', `tree ${t}: a node has no valid nodeid`);
        if (nodes.has(id)) throw new Refusal('corrupt', `tree ${t} repeats node ${id}`);
        const num = (x: unknown) => (typeof x === 'number' ? x : undefined);
        const node: DumpNode = { id, cover: num(v.cover), gain: num(v.gain) };
        if (typeof v.leaf === 'number') {
          node.leaf = v.leaf;
        } else {
          if (typeof v.split !== 'string' || typeof v.split_condition !== 'number') {
            throw new Refusal('unsupported-estimator', `tree ${t} node ${id} is not a numeric split (categorical and indicator splits are not read)`);
          }
          node.feature = v.split;
          node.threshold = v.split_condition;
          node.yes = num(v.yes);
          node.no = num(v.no);
          node.missing = num(v.missing);
          const children = v.children;
          if (!Array.isArray(children)) throw new Refusal('corrupt', `tree ${t} node ${id} has no children`);
          children.forEach((child, c) => stack.push({ value: child, path: [...path, 'children', c], depth: depth + 1 }));
        }
        nodes.set(id, node);
        pathOf.set(id, path);
      }
      return nodes;
    });
    const features = new FeatureNames(namesIn(collected));
    const natives = collected.map((nodes, t) => nativeOf(nodes, features, t));
    const { forest } = forestOf(natives, features);
    let tree: JsonNode | undefined;
    let lineStarts: number[] | undefined;
    const locate = (path: ModelPath): SourceRange | undefined => {
      if (path.tree === undefined) return undefined;
      const ids = forest.trees[path.tree]?.boosting?.nodeId;
      const id = path.node === undefined ? 0 : ids?.[path.node] ?? path.node;
      const jsonPath = paths[path.tree]?.get(id);
      if (!jsonPath) return undefined;
      tree ??= parseTree(withFiniteTokens(text));
      const found = tree && findNodeAtLocation(tree, [...jsonPath, 'nodeid']);
      if (!found?.parent) return undefined;
      if (!lineStarts) {
        lineStarts = [0];
        for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
      }
      // The `"nodeid": n` property: the node's first line, not its whole subtree.
      return { start: positionOf(lineStarts, found.parent.offset), end: positionOf(lineStarts, found.parent.offset + found.parent.length) };
    };
    return { ok: true, forest, notes: [...DUMP_NOTES], locate };
  });
}

export { positionOf };
