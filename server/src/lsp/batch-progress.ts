/**
 * The progress of a folder's analysis (start-up, "Analyse Workspace", a settings change): one LSP
 * work-done progress, "Model Privacy Lint: 3 of 7 models", counting the files whose work ended
 * (fast findings, reconstruction and advisor run, or nothing to run), so the status bar says what
 * remains while each running job shows its own cancellable progress. Files added while it runs
 * (another scan) join it; it ends when every file has settled.
 */
import type { WorkDoneProgressServerReporter } from 'vscode-languageserver/node';
import { LateProgress } from './late-progress';

export class BatchProgress {
  private readonly files = new Set<string>();
  private readonly done = new Set<string>();
  private readonly progress: LateProgress;

  constructor(
    create: () => Promise<WorkDoneProgressServerReporter>,
    files: string[],
    private readonly onChange: () => void = () => {},
  ) {
    for (const file of files) this.files.add(file);
    // Without it (a client that refuses), the status item carries the same count.
    this.progress = new LateProgress(create, (reporter) => reporter.begin('Model Privacy Lint', this.percentage, this.text, false));
  }

  /** More files to analyse in this batch (a file analysed again counts again). */
  add(files: string[]): void {
    for (const file of files) {
      this.files.add(file);
      this.done.delete(file);
    }
    this.update();
  }

  /** The file's work ended. */
  settle(file: string): void {
    if (!this.progress.active || !this.files.has(file) || this.done.has(file)) return;
    this.done.add(file);
    this.update();
    if (this.done.size === this.files.size) this.end();
  }

  get active(): boolean {
    return this.progress.active;
  }

  /** "3 of 7 models" */
  get text(): string {
    return `${this.done.size} of ${this.files.size} models`;
  }

  end(): void {
    if (this.progress.end()) this.onChange();
  }

  private get percentage(): number {
    return this.files.size === 0 ? 100 : Math.floor((100 * this.done.size) / this.files.size);
  }

  private update(): void {
    this.progress.reporter?.report(this.percentage, this.text);
    this.onChange();
  }
}
