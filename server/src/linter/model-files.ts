/** Which files are model files: shared by the CLI's directory walk and the server's defaults. */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { detectForeign } from '../formats/foreign';
import { detectXgboost } from '../formats/xgboost';

/**
 * File endings read when walking a directory (explicitly named files are read whatever their name).
 * `.sav` is scikit-learn's documented example name for pickled models; joblib picks its compression
 * by these extra endings (`model.pkl.gz`, `model.joblib.xz`), and users name files after it.
 */
const PICKLE_ENDINGS = ['.joblib', '.pkl', '.pickle', '.sav'] as const;
const COMPRESSION_ENDINGS = ['.gz', '.z', '.bz2', '.xz', '.lzma', '.lz4'] as const;
export const MODEL_FILE_SUFFIXES = [
  ...PICKLE_ENDINGS,
  ...PICKLE_ENDINGS.flatMap((ending) => COMPRESSION_ENDINGS.map((compression) => `${ending}${compression}`)),
  // bz2.BZ2File + pickle.dump, the name Python answers on Stack Overflow give compressed pickles.
  '.pbz2',
  '.forest.json',
  '.ubj',
  '.skops',
  '.xgb',
  '.dump.txt',
] as const;

/**
 * XGBoost JSON models, legacy binary models and dumps have no suffix of their own: only JSON,
 * `.model` and `.bin` files with `xgb` in their name, and the dump names of XGBoost's own demos,
 * are picked up by name (the content decides). Every `.model` / `.bin` would take in gensim,
 * sentencepiece and PyTorch files, each reported as an unreadable model.
 */
const MODEL_FILE_NAMES = /(?:^|[\\/])(?:[^\\/]*xgb[^\\/]*\.(?:json|model|bin)|dump\.(?:raw|nice)\.txt)$/i;

/** The default `modelPrivacyLint.files` setting: the same endings as workspace globs. */
export const DEFAULT_MODEL_GLOBS = [
  '**/*.{joblib,pkl,pickle,sav}',
  '**/*.{joblib,pkl,pickle,sav}.{gz,z,bz2,xz,lzma,lz4}',
  '**/*.pbz2',
  '**/*.forest.json',
  '**/*.ubj',
  '**/*.skops',
  '**/*xgb*.json',
  '**/*xgb*.model',
  '**/*xgb*.bin',
  '**/*.xgb',
  '**/*.dump.txt',
  '**/dump.raw.txt',
  '**/dump.nice.txt',
];

const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git', '.hg', '.svn', '__pycache__', '.venv', 'venv', '.cache', 'out', 'dist']);

export function isModelFileName(name: string): boolean {
  const lower = name.toLowerCase();
  return MODEL_FILE_SUFFIXES.some((suffix) => lower.endsWith(suffix)) || MODEL_FILE_NAMES.test(name);
}

/** Bytes read from the head of a file whose name does not say it is a model (see isModelByContent). */
const HEAD_BYTES = 4096;

/**
 * Endings of files that may be an XGBoost model or dump, or another library's model, under a name
 * of their own: `save_model("0001.model")`, `xgb.save(bst, "test.model")` in R, a binary model
 * saved as `xgb_model.txt`, `xgb.dump`, R's `xgb.dump(model, "trees.txt")`, LightGBM's
 * `model.txt`, and `model.bst` (XGBoost's demos' name, in 28 public repositories of the index; by
 * content, since `.bst` is also BibTeX's style files). Only these are opened in a directory walk,
 * and only their first bytes.
 */
const CONTENT_DECIDED = /\.(txt|model|bin|dump|json|raw|file|rawfile|bst)$/i;

/**
 * Whether a file found in a directory is a model by its first bytes: an XGBoost model or dump
 * (the XGBoost reader's own signatures), or a LightGBM or CatBoost model (formats/foreign.ts,
 * named by an `unsupported-model` note). Names alone missed them (sweep 14: `0001.model`,
 * `test.model`, `xgb.dump`, a binary `xgb_model.txt`), and taking every such name would report
 * gensim, sentencepiece and PyTorch files, requirements and feature lists as unreadable models.
 */
async function isModelByContent(path: string): Promise<boolean> {
  if (!CONTENT_DECIDED.test(path)) return false;
  let handle;
  try {
    handle = await fs.open(path, 'r');
    const head = new Uint8Array(HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, HEAD_BYTES, 0);
    const bytes = head.subarray(0, bytesRead);
    const foreign = detectForeign(bytes);
    return detectXgboost(bytes) !== undefined || (foreign !== undefined && foreign !== 'git-lfs-pointer');
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}

/**
 * Expands files and directories into model files, sorted, without following symbolic links.
 * `byContent`: also take files whose first bytes are a model's, whatever their name (isModelByContent).
 */
export async function collectModelFiles(
  paths: string[],
  accept: (path: string) => boolean = (path) => isModelFileName(path),
  byContent = true,
): Promise<{ files: string[]; missing: string[] }> {
  const files: string[] = [];
  const missing: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return; // unreadable directory: skip it, as a linter should
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) await walk(full);
      } else if (entry.isFile() && (accept(full) || (byContent && (await isModelByContent(full))))) {
        files.push(full);
      }
    }
  };
  for (const path of paths) {
    try {
      const stat = await fs.stat(path);
      if (stat.isDirectory()) await walk(path);
      else files.push(path);
    } catch {
      missing.push(path);
    }
  }
  return { files: [...new Set(files)].sort(), missing };
}
