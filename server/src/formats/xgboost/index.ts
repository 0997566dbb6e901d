/**
 * XGBoost files, recognised by content, read without running XGBoost:
 *   xgboost-json       save_model("m.json")            JSON text, findings point into it
 *   xgboost-ubj        save_model("m.ubj") (2.1+ default) UBJSON, binary: findings are per file
 *   xgboost-dump       dump_model("d.txt")             text dump, findings point at node lines
 *   xgboost-dump-json  dump_model(..., dump_format="json")
 *   xgboost-binary     save_model("m.model"), save_raw()  legacy binary (`binf`, or before 1.1 no magic): per file
 */
import { findNodeAtLocation, parseTree, type Node as JsonNode } from 'jsonc-parser';
import type { ModelPath, ModelReader, ReadResult, SourceRange, UnreadableReason } from '../types';
import { positionOf, readJsonDump, readTextDump, TEXT_LINES } from './dumps';
import { decodeLegacyBinary, looksLikeLegacyBinary } from './legacy-binary';
import { parseJsonWithNaN } from './json-nan';
import { buildForest } from './model';
import { decodeUbjson } from './ubjson';

type Kind = 'xgboost-json' | 'xgboost-ubj' | 'xgboost-dump' | 'xgboost-dump-json' | 'xgboost-binary';

const HEAD = 4096;

function headText(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, HEAD)).toString('utf8');
}

/** What kind of XGBoost file the bytes are, from their first few kilobytes. */
export function detectXgboost(bytes: Uint8Array): Kind | undefined {
  if (bytes.length < 2) return undefined;
  // First: its signature is strict (a magic, or names at fixed offsets), and a file before 1.1
  // starts with a float32 whose first byte could be anything, `{` included.
  if (looksLikeLegacyBinary(bytes)) return 'xgboost-binary';
  // UBJSON object: `{` then a key length marker (or an optimised-container header).
  if (bytes[0] === 0x7b && 'iUIlL$#'.includes(String.fromCharCode(bytes[1]))) {
    const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 256)).toString('latin1');
    return head.includes('learner') ? 'xgboost-ubj' : undefined;
  }
  const head = headText(bytes).replace(/^\uFEFF/, '');
  const trimmed = head.trimStart();
  if (trimmed.startsWith('{')) return /"learner"\s*:/.test(head) && /"gradient_booster"|"learner_model_param"|"attributes"|"feature_names"/.test(head) ? 'xgboost-json' : undefined;
  if (trimmed.startsWith('[')) return /^\[\s*\{\s*"nodeid"\s*:/.test(trimmed) ? 'xgboost-dump-json' : undefined;
  const firstLine = trimmed.split('\n', 1)[0].replace(/\r$/, '');
  if (TEXT_LINES.booster.test(firstLine) || TEXT_LINES.split.test(firstLine) || TEXT_LINES.leaf.test(firstLine)) return 'xgboost-dump';
  return undefined;
}

/** Finds, on first use, the entry of a node in `trees[t].sum_hessian` (the cover that leaks) in a JSON model. */
function jsonLocator(text: string, nodeIds: (readonly number[] | undefined)[]): (path: ModelPath) => SourceRange | undefined {
  let tree: JsonNode | undefined;
  let lineStarts: number[] | undefined;
  return (path) => {
    if (path.tree === undefined) return undefined;
    tree ??= parseTree(text);
    if (!tree) return undefined;
    const base = ['learner', 'gradient_booster', 'model', 'trees', path.tree];
    let node: JsonNode | undefined;
    if (path.node !== undefined) {
      const id = nodeIds[path.tree]?.[path.node] ?? path.node;
      node = findNodeAtLocation(tree, [...base, 'sum_hessian', id]) ?? findNodeAtLocation(tree, [...base, 'left_children', id]);
    }
    // dart keeps its trees one level deeper
    node ??= findNodeAtLocation(tree, base) ?? findNodeAtLocation(tree, ['learner', 'gradient_booster', 'gbtree', 'model', 'trees', path.tree]);
    if (!node) return undefined;
    if (!lineStarts) {
      lineStarts = [0];
      for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
    }
    const start = positionOf(lineStarts, node.offset);
    const lineEnd = start.line + 1 < lineStarts.length ? lineStarts[start.line + 1] - 1 : text.length;
    const lineLength = lineEnd - lineStarts[start.line];
    if (lineLength > LONG_LINE) return lineHead(text, lineStarts[start.line], lineLength, start.line);
    return { start, end: positionOf(lineStarts, node.offset + node.length) };
  };
}

/**
 * Longer lines than this are not where a person looks: `save_model("m.json")` writes the whole
 * model on one line (20,000 characters for a small model), and a squiggle on one number deep in
 * it is off screen, cut in the peek and the hover. Findings there sit at the line's start.
 */
export const LONG_LINE = 1000;

/** The line's first token (`{"learner"`), at least one character: visible, and short. */
function lineHead(text: string, offset: number, lineLength: number, line: number): SourceRange {
  const head = /^\s*[{[]?\s*("(?:[^"\\]|\\.){0,60}")?/.exec(text.slice(offset, offset + 80));
  const length = Math.max(1, Math.min(lineLength, head?.[0].length ?? 1));
  return { start: { line, character: 0 }, end: { line, character: length } };
}

function finish(text: string | undefined, format: Kind, root: unknown): ReadResult {
  const built = buildForest(root);
  if (!built.ok) return refused(format, built.reason, built.detail, built.linear);
  const nodeIds = built.forest.trees.map((t) => t.boosting?.nodeId);
  return { kind: 'model', format, forest: built.forest, notes: built.notes, ...(text !== undefined ? { locate: jsonLocator(text, nodeIds) } : {}) };
}

const sentence = (detail: string) => (/[.!?]$/.test(detail) ? detail : `${detail}.`);

/**
 * A model the XGBoost readers refuse for what it is (a linear booster, categorical splits), not for
 * how it is stored: the same `unsupported-model` note a pickle holding it gets, not "cannot read".
 */
function refused(format: Kind, reason: UnreadableReason, detail: string, linear = false): ReadResult {
  if (linear) return { kind: 'no-model', format, holds: 'an XGBoost linear model (booster gblinear: no trees)', unread: [], notes: [] };
  if (reason !== 'unsupported-estimator') return { kind: 'unreadable', format, reason, detail: sentence(detail) };
  return { kind: 'no-model', format, holds: 'an XGBoost model', unread: [{ location: 'model', estimator: 'XGBoost model', reason: detail.replace(/[.]$/, '') }], notes: [] };
}

export function readXgboost(bytes: Uint8Array, fileName = ''): ReadResult {
  const kind = detectXgboost(bytes) ?? (/\.ubj$/i.test(fileName) ? 'xgboost-ubj' : undefined);
  if (!kind) return { kind: 'unreadable', format: 'xgboost', reason: 'not-a-model', detail: 'the content is not an XGBoost model or dump.' };
  if (kind === 'xgboost-ubj') {
    const decoded = decodeUbjson(bytes);
    if (!decoded.ok) return { kind: 'unreadable', format: kind, reason: decoded.reason, detail: sentence(`the UBJSON is ${decoded.reason}: ${decoded.detail}`) };
    return finish(undefined, kind, decoded.value);
  }
  if (kind === 'xgboost-binary') {
    const decoded = decodeLegacyBinary(bytes);
    if (!decoded.ok) {
      const what = bytes[0] === 0x62 ? "the file starts with `binf`, the mark of XGBoost's legacy binary format" : "the file is laid out as XGBoost's legacy binary format";
      const detail = decoded.reason === 'unsupported-estimator' ? decoded.detail : `${what}, but is ${decoded.reason}: ${decoded.detail}`;
      return refused(kind, decoded.reason, detail, decoded.linear);
    }
    const read = finish(undefined, kind, decoded.model);
    return read.kind === 'model' ? { ...read, notes: [...decoded.notes, ...read.notes] } : read;
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  if (kind === 'xgboost-json') {
    let json: unknown;
    try {
      json = parseJsonWithNaN(text);
    } catch (error) {
      const message = (error as Error).message;
      const reason = /end of JSON input|Unterminated/i.test(message) ? 'truncated' : 'corrupt';
      return { kind: 'unreadable', format: kind, reason, detail: `the file is not valid JSON (${message}).` };
    }
    return finish(text, kind, json);
  }
  const dump = kind === 'xgboost-dump' ? readTextDump(text) : readJsonDump(text);
  if (!dump.ok) return refused(kind, dump.reason, dump.detail);
  return { kind: 'model', format: kind, forest: dump.forest, notes: dump.notes, locate: dump.locate };
}

export const xgboostReader: ModelReader = {
  format: 'xgboost',
  sniff: (bytes, fileName) => detectXgboost(bytes) !== undefined || (/\.ubj$/i.test(fileName) && bytes[0] === 0x7b),
  read: readXgboost,
};
