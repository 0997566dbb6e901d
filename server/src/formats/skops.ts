/**
 * skops archives (`skops.io.dump`, `*.skops`; MLflow's `serialization_format="skops"`): a ZIP file
 * whose `schema.json` describes the saved object as a tree of nodes (`ObjectNode`, `DictNode`,
 * `TreeNode`, ...) and whose `.npy` files hold its arrays. Nothing in it is code, and this reader
 * runs none either way.
 *
 * Recognised, not read: no skops library can be installed here to make the real fixtures the
 * readers are tested against, so the trees are not decoded (yet). The archive gets the note every
 * unread tree model gets (`unsupported-model`), naming the models `schema.json` holds and where,
 * or a `no-tree-model` note saying what it holds; before stop 32 it was "not a model".
 */
import { decoderFor, unreadTreeModel } from './sklearn/estimators';
import { PyGlobal } from './pickle';
import type { ModelReader, ReadResult, UnreadModel } from './types';
import { isZip, zipEntries, zipEntryData } from './zip';

/** `schema.json` larger than this is not parsed (a skops schema is KBs to a few MB). */
const MAX_SCHEMA_BYTES = 64 * 1024 * 1024;
/** Nodes of the schema visited at most. */
const MAX_NODES = 1_000_000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function schemaOf(bytes: Uint8Array): JsonObject | string {
  const entries = zipEntries(bytes);
  if (typeof entries === 'string') return entries;
  const schema = entries.find((e) => e.name === 'schema.json');
  if (!schema) return 'the ZIP archive has no schema.json, so it is not a skops file';
  const data = zipEntryData(bytes, schema, MAX_SCHEMA_BYTES);
  if (typeof data === 'string') return data;
  try {
    const parsed = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as Json;
    return isObject(parsed) && typeof parsed.__class__ === 'string' ? parsed : 'schema.json does not describe an object';
  } catch (error) {
    return `schema.json is not valid JSON (${(error as Error).message})`;
  }
}

/** A tree model's class (one this tool decodes from pickles, or knows it does not). */
function isTreeModel(module: string, name: string): boolean {
  const cls = new PyGlobal(module, name);
  return decoderFor(cls) !== undefined || unreadTreeModel(cls) !== undefined;
}

/** The tree models the schema holds, outermost only, each with the Python expression that reaches it. */
function treeModels(root: JsonObject, version: string): UnreadModel[] {
  const found: UnreadModel[] = [];
  const stack: { node: Json; at: string; attributes: boolean }[] = [{ node: root, at: 'model', attributes: false }];
  let visited = 0;
  while (stack.length > 0 && visited++ < MAX_NODES) {
    const { node, at, attributes } = stack.pop()!;
    if (Array.isArray(node)) {
      node.forEach((child, i) => stack.push({ node: child, at: `${at}[${i}]`, attributes: false }));
      continue;
    }
    if (!isObject(node)) continue;
    const cls = node.__class__;
    const module = node.__module__;
    if (typeof cls === 'string' && typeof module === 'string' && node.__loader__ === 'ObjectNode' && isTreeModel(module, cls)) {
      found.push({ location: at, estimator: cls, reason: `a skops archive (skops ${version}), which this tool does not read yet` });
      continue;
    }
    const content = node.content;
    if (node.__loader__ === 'ObjectNode' && isObject(content)) {
      stack.push({ node: content, at, attributes: true });
    } else if (node.__loader__ === 'DictNode' && isObject(content)) {
      for (const [key, child] of Object.entries(content)) stack.push({ node: child, at: attributes ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`, attributes: false });
    } else if ((node.__loader__ === 'ListNode' || node.__loader__ === 'TupleNode') && Array.isArray(content)) {
      stack.push({ node: content, at, attributes: false });
    }
  }
  return found.reverse();
}

export function readSkops(bytes: Uint8Array): ReadResult {
  const schema = schemaOf(bytes);
  if (typeof schema === 'string') return { kind: 'unreadable', format: 'skops', reason: 'corrupt', detail: `${schema}.` };
  const version = typeof schema._skops_version === 'string' ? schema._skops_version : 'version not stated';
  const holds = `a skops archive of ${String(schema.__module__)}.${String(schema.__class__)} (skops ${version}${schema.protocol !== undefined ? `, protocol ${String(schema.protocol)}` : ''})`;
  return { kind: 'no-model', format: 'skops', holds, unread: treeModels(schema, version), notes: [] };
}

export const skopsReader: ModelReader = {
  format: 'skops',
  // A ZIP file: skops when it lists schema.json (NumPy's .npz and PyTorch's archives do not). Only
  // the central directory is read here; read() inflates and parses the schema once.
  sniff: (bytes) => {
    if (!isZip(bytes)) return false;
    const entries = zipEntries(bytes);
    return typeof entries !== 'string' && entries.some((e) => e.name === 'schema.json');
  },
  read: readSkops,
};
