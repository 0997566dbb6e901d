/**
 * Where `--emit-reconstruction FILE.csv` writes each model's reconstruction. With one model file
 * on the command line: FILE.csv itself. With several: one file per model beside FILE.csv, named
 * `<FILE without .csv>.<model file name>.csv` (`rows.csv` and `models/a.joblib` give
 * `rows.a.joblib.csv`); two models with the same file name in different folders get `-2`, `-3`
 * after the second and third. The rule depends only on the list of model files, so a script can
 * predict the names. `--out FILE.html` names its per-model HTML reports the same way (`extension`).
 */
import { basename, dirname, extname, join } from 'node:path';

export function emitPaths(target: string, modelFiles: readonly string[], extension = '.csv'): Map<string, string> {
  const paths = new Map<string, string>();
  if (modelFiles.length === 1) {
    paths.set(modelFiles[0], target);
    return paths;
  }
  const stem = extname(target).toLowerCase() === extension ? basename(target).slice(0, -extension.length) : basename(target);
  const taken = new Map<string, number>();
  for (const model of modelFiles) {
    const name = basename(model);
    const seen = (taken.get(name) ?? 0) + 1;
    taken.set(name, seen);
    paths.set(model, join(dirname(target), `${stem}.${name}${seen > 1 ? `-${seen}` : ''}${extension}`));
  }
  return paths;
}
