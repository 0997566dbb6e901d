// Runs a command and reports its wall time and the peak of the summed resident memory of its whole
// process tree (the command line and its worker processes), sampled every 100 ms from /proc (Linux).
// `/usr/bin/time -v` reports the largest single process instead. Usage:
//   node scripts/process-tree-memory.mjs node dist/cli.js examples --budget 3 --fail-on never
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [command, ...args] = process.argv.slice(2);
const started = Date.now();
const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
let peakKb = 0;
let peakProcesses = 0;

function tree(pid) {
  const pids = [pid];
  try {
    for (const c of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) pids.push(...tree(Number(c)));
  } catch {
    // ended meanwhile
  }
  return pids;
}

const timer = setInterval(() => {
  const pids = tree(child.pid);
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
    } catch {
      // ended meanwhile
    }
  }
  if (kb > peakKb) [peakKb, peakProcesses] = [kb, pids.length];
}, 100);

child.on('exit', (code) => {
  clearInterval(timer);
  console.log(`exit ${code}, ${((Date.now() - started) / 1000).toFixed(1)} s, peak summed RSS ${Math.round(peakKb / 1024)} MB over ${peakProcesses} processes`);
});
