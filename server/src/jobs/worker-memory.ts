/**
 * A worker process's memory beyond its V8 heap, and why a worker process ended, in words.
 *
 * `--max-old-space-size` caps the JavaScript heap only: Buffers, typed arrays and HiGHS's
 * WebAssembly memory (up to 2 GB, fixed by its build: the module exports its memory, so no option
 * at instantiation can cap it) live outside it. So the whole process's resident memory is checked
 * too, against the same ceiling: on Linux the parent reads /proc/<pid>/status every
 * SAMPLE_MS, which also catches a synchronous solve that posts nothing; everywhere, each message
 * of the worker carries its own `process.memoryUsage().rss` (job-port.ts).
 */
import { promises as fs } from 'node:fs';
import type { ChildProcess } from 'node:child_process';

/** The limits a job can hit, each with its own setting to raise it. */
export type Limit = 'time' | 'memory';

const SAMPLE_MS = 100;
const MB = 1024 * 1024;

export class MemoryWatch {
  private timer: NodeJS.Timeout | undefined;
  private lastBytes = 0;
  private stopped = false;
  private readonly procStatus: string | undefined;

  constructor(
    child: ChildProcess,
    private readonly ceilingMb: number,
    private readonly exceeded: () => void,
  ) {
    this.procStatus = process.platform === 'linux' && child.pid !== undefined ? `/proc/${child.pid}/status` : undefined;
  }

  /** Samples while a job runs. */
  start(): void {
    if (this.stopped || this.timer || !this.procStatus) return;
    this.timer = setInterval(() => void this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  /** No sampling while the worker waits for a job. */
  pause(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  stop(): void {
    this.stopped = true;
    this.pause();
  }

  /** The worker's own figure (`process.memoryUsage().rss`), sent with its messages. */
  reported(bytes: number): void {
    this.observe(bytes);
  }

  /** The last resident size seen, in MiB. */
  residentMb(): number {
    return this.lastBytes / MB;
  }

  private async sample(): Promise<void> {
    let text: string;
    try {
      text = await fs.readFile(this.procStatus!, 'utf8');
    } catch {
      return; // the process just ended: its 'close' event tells why
    }
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(text);
    if (kb && !this.stopped) this.observe(Number(kb[1]) * 1024);
  }

  private observe(bytes: number): void {
    this.lastBytes = bytes;
    if (this.timer && bytes > this.ceilingMb * MB) this.exceeded();
  }
}

/**
 * Why a worker process ended, from its exit and the end of its stderr (where V8 writes why it
 * aborted): `heap` when the V8 heap ceiling was reached (the caller words it with the ceiling),
 * else a phrase that follows "the <label> ...".
 */
export function faultDetail(stderr: string, code: number | null, signal: NodeJS.Signals | null): 'heap' | string {
  if (/JavaScript heap out of memory|Reached heap limit/.test(stderr)) return 'heap';
  const invalidSize = /Fatal JavaScript invalid (?:size|array length|table size) error[^\n]*/.exec(stderr);
  if (invalidSize) {
    // Not a question of memory: no ceiling raises V8's largest array.
    const what = invalidSize[0].replace(/\s*\(see [^)]*\)/, '').trim();
    return `hit a size limit of V8 (${what}: an array larger than V8 can hold) and was stopped; the model is too large for this analysis`;
  }
  const fatal = /(?:Fatal error in[^\n]*\n[#\s]*|FATAL ERROR:\s*)([^\n]+)/.exec(stderr);
  if (fatal) return `stopped on a fatal error of V8 (${fatal[1].replace(/^#\s*/, '').trim()})`;
  const how = signal ? `signal ${signal}` : `exit code ${code}`;
  return `stopped unexpectedly (${how}); it may have run out of memory`;
}
