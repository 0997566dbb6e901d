/**
 * Files that are not a format this tool reads but that a person would call a model file, told
 * apart by their first bytes so the finding says what they are instead of "not a format this tool
 * reads" (sweep 14 found each in public repositories):
 *  - LightGBM's own model files: `Booster.save_model()` / `model_to_string()` text, which starts
 *    `tree` then `version=v3` (or v4), and `dump_model()` JSON, `{"name":"tree","version":"v4",...`;
 *  - CatBoost's own model files: `save_model()` binary (`CBM1` magic, `*.cbm`) and its JSON
 *    (`format="json"`: `model_info`, `features_info` and `oblivious_trees`);
 *  - a Git LFS pointer committed in the model's place (`version https://git-lfs.github.com/spec/v1`,
 *    then the object's sha256 and size): the model itself was never checked out.
 *
 * The models get the `unsupported-model` note a pickled LGBMClassifier or CatBoostClassifier gets
 * (neither library can be installed here to make the fixtures a reader would be tested against);
 * the pointer an `unreadable-model` warning that says how to fetch the file. Nothing is parsed
 * beyond the head, and nothing runs.
 */
import type { ModelReader, ReadResult } from './types';

/** Bytes of the head the signatures are looked for in. */
const HEAD_BYTES = 4096;

type Foreign = 'lightgbm-text' | 'lightgbm-json' | 'catboost-binary' | 'catboost-json' | 'git-lfs-pointer';

function headText(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, HEAD_BYTES)).toString('latin1').replace(/^\uFEFF|^\xEF\xBB\xBF/, '');
}

export function detectForeign(bytes: Uint8Array): Foreign | undefined {
  if (bytes.length >= 4 && bytes[0] === 0x43 && bytes[1] === 0x42 && bytes[2] === 0x4d && bytes[3] === 0x31) return 'catboost-binary';
  const head = headText(bytes);
  if (/^tree\r?\nversion=v\d+\r?\n/.test(head)) return 'lightgbm-text';
  if (head.startsWith('version https://git-lfs.github.com/spec/')) return 'git-lfs-pointer';
  const trimmed = head.trimStart();
  if (!trimmed.startsWith('{')) return undefined;
  if (/^\{\s*"name"\s*:\s*"tree"\s*,\s*"version"\s*:\s*"v\d+"/.test(trimmed)) return 'lightgbm-json';
  if (/"oblivious_trees"\s*:/.test(head) || (/"model_info"\s*:/.test(head) && /"features_info"\s*:/.test(head))) return 'catboost-json';
  return undefined;
}

function unread(format: Foreign, library: 'LightGBM' | 'CatBoost', saved: string): ReadResult {
  return {
    kind: 'no-model',
    format,
    holds: `a ${library} model (${saved})`,
    unread: [{ location: 'model', estimator: `${library} model`, reason: `${library} models are not read yet; this is its ${saved}` }],
    notes: [],
  };
}

/** The size a Git LFS pointer states for the object it stands for, in bytes. */
function lfsSize(bytes: Uint8Array): number | undefined {
  const size = /^size (\d+)\s*$/m.exec(headText(bytes));
  return size ? Number(size[1]) : undefined;
}

function read(bytes: Uint8Array): ReadResult {
  const kind = detectForeign(bytes);
  switch (kind) {
    case 'lightgbm-text':
      return unread(kind, 'LightGBM', 'save_model text format');
    case 'lightgbm-json':
      return unread(kind, 'LightGBM', 'dump_model JSON');
    case 'catboost-binary':
      return unread(kind, 'CatBoost', 'save_model binary format');
    case 'catboost-json':
      return unread(kind, 'CatBoost', 'save_model JSON format');
    case 'git-lfs-pointer': {
      const size = lfsSize(bytes);
      const of = size !== undefined ? ` to a ${size.toLocaleString('en-US')}-byte file` : '';
      return {
        kind: 'unreadable',
        format: kind,
        reason: 'not-a-model',
        detail: `the file is a Git LFS pointer${of}, not the model: fetch it with \`git lfs pull\` (in CI, check out with LFS enabled) and analyse again.`,
      };
    }
    default:
      return { kind: 'unreadable', format: 'unknown', reason: 'not-a-model', detail: 'the content is not a format this tool reads.' };
  }
}

export const foreignReader: ModelReader = {
  format: 'foreign',
  sniff: (bytes) => detectForeign(bytes) !== undefined,
  read: (bytes) => read(bytes),
};
