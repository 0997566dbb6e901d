#!/usr/bin/env node
/**
 * `npm run bench`: every benchmark, one after the other (they measure time; running them side by
 * side on 2 cores would measure the contention). Installs Debian's python3-sklearn and
 * python3-xgboost first when missing, since the benchmarks train their models with them.
 *
 *   node scripts/run-benches.mjs                 all of them (about an hour on 2 cores)
 *   node scripts/run-benches.mjs draft-grid dp   only these (names: the files test/bench/<name>.bench.ts)
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const ORDER = ['first-findings', 'xgboost-probe', 'reconstruction', 'draft-grid', 'bootstrap', 'dp', 'numeric', 'numeric-forests', 'advisor', 'membership'];
const available = readdirSync('out/test/bench').filter((f) => f.endsWith('.bench.js')).map((f) => f.slice(0, -'.bench.js'.length));
const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${available.join(', ')}`);
  process.exit(2);
}
const names = wanted.length ? wanted : [...ORDER.filter((n) => available.includes(n)), ...available.filter((n) => !ORDER.includes(n))];

const hasPython = (module) => spawnSync('/usr/bin/python3', ['-c', `import ${module}`], { stdio: 'ignore' }).status === 0;
const missing = [['sklearn', 'python3-sklearn'], ['xgboost', 'python3-xgboost']].filter(([module]) => !hasPython(module)).map(([, pkg]) => pkg);
if (missing.length) {
  console.log(`installing ${missing.join(', ')} (Debian) to train the benchmark models ...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // apt-get directly as root, through sudo otherwise.
  const aptGet = (...args) => (process.getuid?.() === 0 ? spawnSync('apt-get', args, { stdio: 'inherit', env }) : spawnSync('sudo', ['apt-get', ...args], { stdio: 'inherit', env }));
  aptGet('update');
  const install = aptGet('install', '-y', ...missing);
  if (install.status !== 0) process.exit(install.status ?? 1);
}

let failed = 0;
for (const name of names) {
  console.log(`\n## ${name}\n`);
  const run = spawnSync(process.execPath, [`out/test/bench/${name}.bench.js`], { stdio: 'inherit' });
  if (run.status !== 0) {
    failed++;
    console.error(`benchmark ${name} failed (exit ${run.status})`);
  }
}
process.exit(failed ? 1 : 0);
