/**
 * Benchmark: time from reading a model file to its first findings, for scikit-learn forests of
 * 10, 100 and 500 trees trained on 100, 1,000 and 10,000 rows. Two figures per model:
 *  - linter: lintFile() in this process (read, decode, replay, rules), median of several runs;
 *  - save -> diagnostics: the bundled language server told the file changed on disk (as VS Code's
 *    watcher does after a save) until it publishes diagnostics, including its debounce.
 * Models are trained by real scikit-learn (test/bench/make-models.py) into .cache/bench/.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lintFile } from '../../server/src/linter/linter';
import { TestLanguageClient } from '../support/lsp-client';
import { REPO_ROOT } from '../support/paths';

const OUT = join(REPO_ROOT, '.cache/bench/models');
const DATA = join(REPO_ROOT, '../shared/data/default_credit_numerical.csv');
const PYTHON = '/usr/bin/python3';

function ensureSklearn(): void {
  if (spawnSync(PYTHON, ['-c', 'import sklearn'], { stdio: 'ignore' }).status === 0) return;
  console.log('installing Debian\'s python3-sklearn to train the benchmark models ...');
  spawnSync('apt-get', ['update'], { stdio: 'inherit' });
  const install = spawnSync('apt-get', ['install', '-y', 'python3-sklearn'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (install.status !== 0) throw new Error('python3-sklearn is needed to train the benchmark models: apt-get install python3-sklearn');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  if (!existsSync(DATA)) throw new Error(`the benchmark trains on ${DATA}; run it with ../shared beside the repository`);
  mkdirSync(OUT, { recursive: true });
  ensureSklearn();
  const made = spawnSync(PYTHON, [join(REPO_ROOT, 'test/bench/make-models.py'), OUT, DATA], { stdio: 'inherit' });
  if (made.status !== 0) throw new Error('training the benchmark models failed');

  const client = await TestLanguageClient.start(OUT, { run: 'onSave' });
  console.log('\nTime to first findings (scikit-learn RandomForestClassifier, joblib, Default Credit numeric data)');
  console.log('| trees | rows | file | nodes | linter (median) | save -> diagnostics | unchanged save (cached) |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  try {
    for (const rows of [100, 1000, 10000]) {
      for (const trees of [10, 100, 500]) {
        const path = join(OUT, `forest-${trees}trees-${rows}rows.joblib`);
        const runs = trees * rows >= 1_000_000 ? 3 : 7;
        const linterMs: number[] = [];
        let nodes = 0;
        for (let i = 0; i < runs; i++) {
          const started = process.hrtime.bigint();
          const report = await lintFile(path, { keepForest: true });
          linterMs.push(Number(process.hrtime.bigint() - started) / 1e6);
          if (!report.forest) throw new Error(`${path}: ${report.findings.map((f) => f.message).join('; ')}`);
          nodes = report.forest.trees.reduce((sum, tree) => sum + tree.left.length, 0);
        }
        const uri = pathToFileURL(path).href;
        const lspMs: number[] = [];
        // The first notification is a cold analysis in the server's worker; later ones hit its
        // content-hash cache, which is what saving an unchanged model costs.
        for (let i = 0; i < Math.min(runs, 5); i++) {
          client.diagnostics.delete(uri);
          const started = process.hrtime.bigint();
          await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri, type: 2 }] });
          await client.waitFor(`diagnostics for ${path}`, () => client.diagnostics.get(uri), 120_000);
          lspMs.push(Number(process.hrtime.bigint() - started) / 1e6);
        }
        const mb = (statSync(path).size / 1e6).toFixed(1);
        console.log(
          `| ${trees} | ${rows.toLocaleString('en-US')} | ${mb} MB | ${nodes.toLocaleString('en-US')} | ${median(linterMs).toFixed(0)} ms | ${lspMs[0].toFixed(0)} ms | ${median(lspMs.slice(1)).toFixed(0)} ms |`,
        );
      }
    }
  } finally {
    await client.stop();
  }
  console.log('\nServer figures include its 75 ms debounce. "save -> diagnostics" is the first (cold) analysis of the');
  console.log('file by the server; "unchanged save" is the median of later ones, answered from the content-hash cache.');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
