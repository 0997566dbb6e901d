/**
 * Watches the membership candidate files the models' sidecars name (`<model>.privacy.json`
 * `"membership": {"candidates": "data/holdout.csv", ...}`, issue 14), so that editing or
 * regenerating a candidate file runs the model's analysis again, as saving the model or its
 * sidecar does.
 *
 * The client watches, not the server (the LSP's advice: one watcher per editor, not per server):
 * the server registers `workspace/didChangeWatchedFiles` watchers for exactly the files named,
 * each as a relative pattern (its folder and its file name; a candidate file may lie outside the
 * workspace), and registers again whenever the set changes. A client without dynamic
 * registration sends no such events: the analysis then follows the model and sidecar only (the
 * Re-run Analysis command still reads the file afresh, as its bytes are in the cache key).
 */
import { basename, dirname, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Disposable, FileSystemWatcher } from 'vscode-languageserver/node';
import { sidecarMembership } from '../membership/sidecar';

export interface CandidateWatchOptions {
  /** Whether the client takes dynamic watcher registrations, and relative patterns in them. */
  support: () => { dynamic: boolean; relative: boolean };
  /** Registers the watchers with the client (`client/registerCapability`). */
  register: (watchers: FileSystemWatcher[]) => Promise<Disposable>;
  log: (message: string) => void;
}

export class CandidateWatch {
  /** Per model URI, the absolute path of the candidate file its sidecar names. */
  private readonly byModel = new Map<string, string>();
  private registration: Promise<Disposable | undefined> | undefined;
  /** The sorted paths of the registration in place, one per line. */
  private registered = '';

  constructor(private readonly options: CandidateWatchOptions) {}

  /** Reads the model's sidecar again (after every analysis of the model) and follows its candidate file. */
  async refresh(modelUri: string): Promise<void> {
    const entry = await sidecarMembership(fileURLToPath(modelUri)).catch(() => undefined);
    if (entry) this.byModel.set(modelUri, entry.path);
    else this.byModel.delete(modelUri);
    await this.sync();
  }

  /** The model is gone: its candidate file is no longer watched for it. */
  async forget(modelUri: string): Promise<void> {
    if (this.byModel.delete(modelUri)) await this.sync();
  }

  /** The models whose sidecar names this file as their candidates. */
  modelsOf(path: string): string[] {
    return [...this.byModel].filter(([, candidates]) => candidates === path).map(([uri]) => uri);
  }

  private async sync(): Promise<void> {
    const support = this.options.support();
    if (!support.dynamic) return;
    const paths = [...new Set(this.byModel.values())].sort();
    const key = paths.join('\n');
    if (key === this.registered) return;
    this.registered = key;
    const previous = this.registration;
    this.registration = paths.length === 0 ? undefined : this.options.register(paths.map((path) => watcher(path, support.relative))).catch((error: unknown) => {
      this.options.log(`watching the membership candidate files failed: ${(error as Error).message}`);
      return undefined;
    });
    (await previous)?.dispose();
  }
}

function watcher(path: string, relative: boolean): FileSystemWatcher {
  if (relative) return { globPattern: { baseUri: pathToFileURL(dirname(path)).href, pattern: basename(path) } };
  // Without relative patterns, the absolute path as a glob (VS Code matches it against its files).
  return { globPattern: path.split(sep).join('/') };
}
