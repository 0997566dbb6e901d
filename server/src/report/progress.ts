/**
 * The reconstruction's progress on one rewritten terminal line, for people watching a slow run.
 * Only when stderr is a terminal: in CI logs and pipes a carriage-return line is noise.
 */
import type { ReconstructionProgress } from '../attacks/reconstruction/types';

const REDRAW_MS = 200;

export interface ProgressLine {
  update(file: string, progress: ReconstructionProgress): void;
  /** Erases the line (before the report or a message is printed). */
  clear(): void;
}

export function progressLine(stream: NodeJS.WriteStream = process.stderr): ProgressLine | undefined {
  if (!stream.isTTY) return undefined;
  let drawn = false;
  let last = 0;
  return {
    update(file, progress) {
      const now = Date.now();
      if (now - last < REDRAW_MS) return;
      last = now;
      const work = progress.total ? ` ${progress.done ?? 0}/${progress.total}` : progress.cells !== undefined ? ` (${progress.cells} found)` : '';
      const text = `reconstructing ${file}: ${progress.phase}${work}, ${(progress.elapsedMs / 1000).toFixed(1)} s`;
      const width = stream.columns && stream.columns > 10 ? stream.columns - 1 : 100;
      stream.write(`\r\x1b[K${text.length > width ? `...${text.slice(text.length - width + 3)}` : text}`);
      drawn = true;
    },
    clear() {
      if (drawn) stream.write('\r\x1b[K');
      drawn = false;
    },
  };
}
