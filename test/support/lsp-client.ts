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
  type Diagnostic,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node';
import { DIST } from './paths';

export class TestLanguageClient {
  readonly diagnostics = new Map<string, Diagnostic[]>();
  readonly notifications: { method: string; params: unknown }[] = [];
  private readonly waiters: (() => void)[] = [];
  private constructor(
    readonly process: ChildProcess,
    readonly connection: ProtocolConnection,
    private settings: Record<string, unknown>,
  ) {}

  static async start(workspace: string, settings: Record<string, unknown> = {}): Promise<TestLanguageClient> {
    const child = spawn(process.execPath, [join(DIST, 'server.js'), '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    const client = new TestLanguageClient(child, connection, settings);
    connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      client.diagnostics.set(params.uri, params.diagnostics);
      client.wake();
    });
    connection.onUnhandledNotification(({ method, params }) => {
      client.notifications.push({ method, params });
      client.wake();
    });
    connection.onRequest('workspace/configuration', (params: { items: { section?: string }[] }) =>
      params.items.map((item) => (item.section === 'modelPrivacyLint' ? client.settings : null)),
    );
    connection.onRequest('client/registerCapability', () => null);
    connection.listen();
    const uri = pathToFileURL(workspace).href;
    await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: uri,
      workspaceFolders: [{ uri, name: 'workspace' }],
      capabilities: { workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true } } },
    });
    await connection.sendNotification('initialized', {});
    return client;
  }

  setSettings(settings: Record<string, unknown>): void {
    this.settings = settings;
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
