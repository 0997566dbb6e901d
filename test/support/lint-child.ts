/**
 * Lints one file in a process of its own and prints what it came to with the process's peak
 * resident memory, so a test can hold one file (a bomb, a deep nesting) to a memory limit that
 * the test runner's own heap does not blur. Usage: node lint-child.js <file> <name>.
 */
import { readFileSync } from 'node:fs';
import { lintBytes } from '../../server/src/linter/linter';

const [file, name] = process.argv.slice(2);
const bytes = new Uint8Array(readFileSync(file));
const start = performance.now();
let result: { ms: number; peakRssMiB: number; model: boolean; rules: string[]; details: string[]; crash?: string };
try {
  const report = lintBytes(bytes, name, { budgetMs: 1_000 });
  result = {
    ms: performance.now() - start,
    peakRssMiB: 0,
    model: report.model !== null,
    rules: report.findings.map((f) => f.rule),
    details: report.findings.map((f) => f.message.replace(/\s+/g, ' ').slice(0, 400)),
  };
} catch (error) {
  result = { ms: performance.now() - start, peakRssMiB: 0, model: false, rules: [], details: [], crash: String((error as Error)?.stack ?? error) };
}
// maxRSS is in KiB on Linux: the most this process held at any moment, reading included.
result.peakRssMiB = process.resourceUsage().maxRSS / 1024;
process.stdout.write(JSON.stringify(result));
