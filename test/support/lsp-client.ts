/**
 * A minimal LSP client for tests: starts the bundled server over stdio, answers its requests
 * (configuration, capability registration) and collects published diagnostics.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  WorkDoneProgress,
  type Diagnostic,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node';
import { DIST } from './paths';

export interface StartOptions {
  /** Declare `window.workDoneProgress` and accept the server's progress tokens. */
  workDoneProgress?: boolean;
  /** Extra environment variables of the server process. */
  env?: Record<string, string>;
  /** Another bundled server script than dist/server.js (a benchmark compares two builds). */
  server?: string;
}

export class TestLanguageClient {
  readonly diagnostics = new Map<string, Diagnostic[]>();
  /** Every publishDiagnostics, in order of arrival. */
  readonly published: PublishDiagnosticsParams[] = [];
  /** For each entry of `published`, how many other notifications had arrived before it (their relative order). */
  readonly publishedAfter: number[] = [];
  /** Work-done progress tokens the server created (`window/workDoneProgress/create`). */
  readonly progressTokens: (string | number)[] = [];
  readonly notifications: { method: string; params: unknown }[] = [];
  /** How many times the server asked for its settings (it does after every configuration change). */
  configurationRequests = 0;
  /** Capabilities the server registered and has not unregistered (`client/registerCapability`), by id. */
  readonly registrations = new Map<string, { method: string; registerOptions?: unknown }>();
  private readonly waiters: (() => void)[] = [];
  private constructor(
    readonly process: ChildProcess,
    readonly connection: ProtocolConnection,
    private settings: Record<string, unknown>,
  ) {}

  static async start(workspace: string, settings: Record<string, unknown> = {}, options: StartOptions = {}): Promise<TestLanguageClient> {
    const child = spawn(process.execPath, [options.server ?? join(DIST, 'server.js'), '--stdio'], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, ...(options.env ?? {}) },
    });
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    const client = new TestLanguageClient(child, connection, settings);
    connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      client.diagnostics.set(params.uri, params.diagnostics);
      client.published.push(params);
      client.publishedAfter.push(client.notifications.length);
      client.wake();
    });
    connection.onUnhandledNotification(({ method, params }) => {
      client.notifications.push({ method, params });
      client.wake();
    });
    connection.onRequest('workspace/configuration', (params: { items: { section?: string }[] }) => {
      client.configurationRequests++;
      client.wake();
      return params.items.map((item) => (item.section === 'modelPrivacyLint' ? client.settings : null));
    });
    connection.onRequest('client/registerCapability', (params: { registrations: { id: string; method: string; registerOptions?: unknown }[] }) => {
      for (const r of params.registrations) client.registrations.set(r.id, { method: r.method, registerOptions: r.registerOptions });
      client.wake();
      return null;
    });
    connection.onRequest('client/unregisterCapability', (params: { unregisterations: { id: string }[] }) => {
      for (const r of params.unregisterations) client.registrations.delete(r.id);
      client.wake();
      return null;
    });
    connection.onRequest('window/workDoneProgress/create', (params: { token: string | number }) => {
      client.progressTokens.push(params.token);
      // The token's `$/progress` notifications reach only handlers registered for it: keep them with the rest.
      connection.onProgress(WorkDoneProgress.type, params.token, (value) => {
        client.notifications.push({ method: '$/progress', params: { token: params.token, value } });
        client.wake();
      });
      client.wake();
      return null;
    });
    connection.listen();
    const uri = pathToFileURL(workspace).href;
    await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: uri,
      workspaceFolders: [{ uri, name: 'workspace' }],
      capabilities: {
        // As VS Code's client declares them (vscode-languageclient 9).
        workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true }, didChangeWatchedFiles: { dynamicRegistration: true, relativePatternSupport: true } },
        ...(options.workDoneProgress ? { window: { workDoneProgress: true } } : {}),
      },
    });
    await connection.sendNotification('initialized', {});
    return client;
  }

  setSettings(settings: Record<string, unknown>): void {
    this.settings = settings;
  }

  /** Changes the settings and waits until the server has fetched them, as VS Code would. */
  async changeSettings(settings: Record<string, unknown>): Promise<void> {
    this.settings = settings;
    const before = this.configurationRequests;
    await this.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
    await this.waitFor('the server to fetch its settings', () => (this.configurationRequests > before ? true : undefined));
    // The reply is on its way; give the server a moment to apply it before the next event.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Polls until `check` returns a value, or fails after `timeoutMs`. */
  async waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 20000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value !== undefined) return value;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  diagnosticsFor(path: string): Diagnostic[] | undefined {
    return this.diagnostics.get(pathToFileURL(path).href);
  }

  async stop(): Promise<void> {
    try {
      await Promise.race([this.connection.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 2000))]);
      await this.connection.sendNotification('exit');
    } catch {
      // the server may already be gone
    }
    this.connection.dispose();
    this.process.kill();
  }
}
