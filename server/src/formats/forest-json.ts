/**
 * `*.forest.json`: the documented interchange file (docs/forest-json.md) for models from other
 * tools. It is the IR itself, validated by the same zod schema.
 */
import { findNodeAtLocation, parseTree, type Node as JsonNode } from 'jsonc-parser';
import { ForestSchema } from '../forest/schema';
import type { ModelPath, ModelReader, ReadResult, SourceRange } from './types';

const TAG = 'model-privacy-lint/forest';

function sniff(bytes: Uint8Array, fileName: string): boolean {
  if (fileName.endsWith('.forest.json')) return true;
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4096)).toString('utf8');
  return head.trimStart().startsWith('{') && head.includes(TAG);
}

/** Builds a locator that maps tree/node to a range, parsing positions only when first asked. */
function locator(text: string): (path: ModelPath) => SourceRange | undefined {
  let tree: JsonNode | undefined;
  let lineStarts: number[] | undefined;
  const position = (offset: number) => {
    if (!lineStarts) {
      lineStarts = [0];
      for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
    }
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - lineStarts[lo] };
  };
  return (path) => {
    tree ??= parseTree(text);
    if (!tree) return undefined;
    let node: JsonNode | undefined;
    if (path.tree !== undefined && path.node !== undefined) {
      // A node has no object of its own (arrays are column-wise); point at its entry in `left`.
      node = findNodeAtLocation(tree, ['trees', path.tree, 'left', path.node]);
    }
    if (!node && path.tree !== undefined) node = findNodeAtLocation(tree, ['trees', path.tree]);
    if (!node) return undefined;
    return { start: position(node.offset), end: position(node.offset + node.length) };
  };
}

function read(bytes: Uint8Array): ReadResult {
  const format = 'forest-json';
  if (bytes.length === 0) return { kind: 'unreadable', format, reason: 'empty', detail: 'the file is empty.' };
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { kind: 'unreadable', format, reason: 'corrupt', detail: `the file is not valid JSON (${(error as Error).message}).` };
  }
  const parsed = ForestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length ? issue.path.join('.') : 'the top level';
    return {
      kind: 'unreadable',
      format,
      reason: 'not-a-model',
      detail: `the file does not match the forest schema at ${where}: ${issue.message} (${parsed.error.issues.length} problem(s) in all).`,
    };
  }
  return { kind: 'model', format, forest: parsed.data, notes: [], locate: locator(text) };
}

export const forestJsonReader: ModelReader = { format: 'forest-json', sniff, read };
