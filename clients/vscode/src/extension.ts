// chatls for VS Code: starts the chatls language server for .chat files and
// adds the approval cycle's commands, key bindings and a status bar item.
// Everything else (previews as inlay hints, Approve/Reject quick fixes,
// diagnostics, results written into the document) comes from the server
// through vscode-languageclient.
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions, State } from 'vscode-languageclient/node';
import { registerCommands } from './commands';
import { runSelfTest } from './selftest';
import { section, serverSettings } from './settings';
import { StatusBar } from './statusBar';

let client: LanguageClient | undefined;

/** What activate returns: used by the self-test, usable by other extensions. */
export interface ChatlsApi {
  client(): LanguageClient | undefined;
  statusText(): string;
  serverSettings(): Record<string, unknown>;
}

function serverOptions(): ServerOptions {
  const cfg = vscode.workspace.getConfiguration('chatls');
  // No `transport`: languageclient would append --stdio; chatls serves stdio anyway.
  return { command: cfg.get<string>('server.path') || 'chatls', args: cfg.get<string[]>('server.args') ?? [] };
}

function clientOptions(ext: vscode.Extension<unknown>): LanguageClientOptions {
  return {
    documentSelector: [{ scheme: 'file', language: 'chat' }],
    initializationOptions: serverSettings(ext),
    outputChannelName: 'chatls',
    middleware: {
      workspace: {
        // Answer the server's pull (section `chatls`) with the same object as
        // initializationOptions, scoped to the document's folder.
        configuration: (params) =>
          params.items.map((item) =>
            section(serverSettings(ext, item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined), item.section),
          ),
      },
    },
  };
}

async function start(context: vscode.ExtensionContext, status: StatusBar): Promise<void> {
  const c = new LanguageClient('chatls', 'chatls', serverOptions(), clientOptions(context.extension));
  c.onDidChangeState((e) => status.setServerState(e.newState === State.Running ? 'running' : e.newState === State.Starting ? 'starting' : 'stopped'));
  client = c;
  try {
    await c.start();
  } catch (err) {
    status.setServerState('failed');
    const pick = await vscode.window.showErrorMessage(
      `chatls: could not start "${vscode.workspace.getConfiguration('chatls').get('server.path')}": ${err}. Install chatls or set chatls.server.path.`,
      'Open Settings',
    );
    if (pick) await vscode.commands.executeCommand('workbench.action.openSettings', 'chatls.server.path');
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<ChatlsApi> {
  const status = new StatusBar();
  context.subscriptions.push(status);
  const restart = async () => {
    await client?.stop().catch(() => undefined);
    await start(context, status);
  };
  registerCommands(context, () => client, restart);

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('chatls.server')) return restart();
      if (e.affectsConfiguration('chatls') && client?.isRunning()) {
        await client.sendNotification('workspace/didChangeConfiguration', { settings: { chatls: serverSettings(context.extension) } });
      }
    }),
  );

  await start(context, status);

  const api: ChatlsApi = {
    client: () => client,
    statusText: () => status.text,
    serverSettings: () => serverSettings(context.extension),
  };
  // The headless self-test of clients/vscode/test (EDITORS.md §3): runs only
  // when the test starts code-server with this variable set.
  const resultFile = process.env.CHATLS_SELFTEST_RESULT;
  if (resultFile) void runSelfTest(api, resultFile);
  return api;
}

export function deactivate(): Thenable<void> | undefined {
  return client?.stop();
}
