// chatls for VS Code: starts the chatls language server for .chat files and
// adds the approval cycle's commands, key bindings and a status bar item.
// Everything else (previews as inlay hints, Approve/Reject quick fixes,
// diagnostics, results written into the document) comes from the server
// through vscode-languageclient.
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions, State } from 'vscode-languageclient/node';
import { Commands, registerCommands } from './commands';
import { runSelfTest } from './selftest';
import { findServer } from './serverPath';
import { section, serverSettings } from './settings';
import { StatusBar, StatusNotice } from './statusBar';

let client: LanguageClient | undefined;

/** What activate returns: used by the self-test, usable by other extensions. */
export interface ChatlsApi {
  client(): LanguageClient | undefined;
  statusText(): string;
  serverSettings(): Record<string, unknown>;
}

function serverCommand(): string {
  return vscode.workspace.getConfiguration('chatls').get<string>('server.path') || 'chatls';
}

function serverOptions(command: string): ServerOptions {
  // No `transport`: languageclient would append --stdio; chatls serves stdio anyway.
  return { command, args: vscode.workspace.getConfiguration('chatls').get<string[]>('server.args') ?? [] };
}

function clientOptions(ext: vscode.Extension<unknown>, commands: Commands): LanguageClientOptions {
  return {
    documentSelector: [{ scheme: 'file', language: 'chat' }],
    initializationOptions: serverSettings(ext),
    outputChannelName: 'chatls',
    middleware: {
      // A clicked Explain lens runs the server's chatls.explain, whose
      // message would be the page squeezed into a notification: show it as
      // the palette's explain does instead.
      executeCommand: (command, args, next) =>
        command === 'chatls.explain' && args.length === 1 && args[0]?.uri && args[0]?.id && !args[0]?.format ? commands.explain(args[0]) : next(command, args),
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

const openServerSetting = () => vscode.commands.executeCommand('workbench.action.openSettings', 'chatls.server.path');

// missingServer is the one message for a chatls that is not there: what is
// missing and the setting that fixes it.
async function missingServer(command: string, status: StatusBar): Promise<void> {
  const what = command.includes('/') ? `"${command}" (chatls.server.path) is not an executable file` : `"${command}" was not found on PATH`;
  const message = `chatls: ${what}. Install it (go install ./cmd/chatls in the chatls repository) or set "chatls.server.path" to the binary's full path.`;
  status.setServerState('missing', message);
  if (await vscode.window.showErrorMessage(message, 'Open Settings')) await openServerSetting();
}

async function start(context: vscode.ExtensionContext, status: StatusBar, commands: Commands): Promise<void> {
  client = undefined;
  const command = serverCommand();
  const found = findServer(command);
  if (!found) return missingServer(command, status);
  const c = new LanguageClient('chatls', 'chatls', serverOptions(found), clientOptions(context.extension, commands));
  c.onDidChangeState((e) => status.setServerState(e.newState === State.Running ? 'running' : e.newState === State.Starting ? 'starting' : 'stopped'));
  c.onNotification('chatls/status', (n: StatusNotice) => status.notice(n));
  client = c;
  try {
    await c.start();
  } catch (err) {
    status.setServerState('failed', `chatls: could not start "${found}": ${err}`);
    const pick = await vscode.window.showErrorMessage(`chatls: could not start "${found}": ${err}. See "chatls: Show the server log".`, 'Open Settings');
    if (pick) await openServerSetting();
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<ChatlsApi> {
  const status = new StatusBar();
  context.subscriptions.push(status);
  const restart = async () => {
    await client?.stop().catch(() => undefined);
    await start(context, status, commands);
  };
  const commands = registerCommands(context, () => client, restart);
  context.subscriptions.push(vscode.commands.registerCommand('chatls.client.openServerSetting', openServerSetting));

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('chatls.server')) return restart();
      if (e.affectsConfiguration('chatls') && client?.isRunning()) {
        await client.sendNotification('workspace/didChangeConfiguration', { settings: { chatls: serverSettings(context.extension) } });
      }
    }),
  );

  await start(context, status, commands);

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
