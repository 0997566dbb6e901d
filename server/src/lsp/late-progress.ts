/**
 * A work-done progress the server creates (`window/workDoneProgress/create`). Creating it is a
 * request to the client, so its reporter arrives later: the work may report before then, or even
 * end; an end before the reply still ends the progress once the reporter comes. A client that
 * refuses or does not support it gets nothing (the status item still says what runs).
 */
import type { WorkDoneProgressServerReporter } from 'vscode-languageserver/node';

export class LateProgress {
  private current: WorkDoneProgressServerReporter | undefined;
  private ended = false;

  /** `begin` runs once, when the reporter arrives before the end. */
  constructor(create: () => Promise<WorkDoneProgressServerReporter>, begin: (reporter: WorkDoneProgressServerReporter) => void) {
    create().then(
      (reporter) => {
        if (this.ended) {
          reporter.done();
          return;
        }
        this.current = reporter;
        begin(reporter);
      },
      () => undefined,
    );
  }

  /** The reporter, once it arrived and until the end. */
  get reporter(): WorkDoneProgressServerReporter | undefined {
    return this.ended ? undefined : this.current;
  }

  get active(): boolean {
    return !this.ended;
  }

  /** Ends the progress (now, or when the reporter arrives); false when it had ended already. */
  end(): boolean {
    if (this.ended) return false;
    this.ended = true;
    this.current?.done();
    return true;
  }
}
