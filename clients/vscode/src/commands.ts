// Palette commands and key bindings. They wrap the server's commands with the
// argument the server needs ({uri} or {uri, id}); vscode-languageclient has
// already registered the bare server commands (chatls.advance, ...) under
// their own names, so ours live under chatls.client.*.
//
// Approve and reject apply the server's own code action: an approval is the
// edit `status=pending` -> `status=approved` (SPEC §2), and the server's
// action is the authority on what that edit is for each placeholder dialect.
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { placeholder, splitLines, toolIdAt } from './chatdoc';

export interface AdvanceResult {
  phase?: string;
  pending?: number;
  running?: number;
  ready?: boolean;
}

function chatEditor(): vscode.TextEditor | undefined {
  const e = vscode.window.activeTextEditor;
  if (!e || e.document.languageId !== 'chat') {
    vscode.window.showWarningMessage('chatls: open a .chat file first');
    return undefined;
  }
  return e;
}

function toolAtCursor(e: vscode.TextEditor): string | undefined {
  const id = toolIdAt(splitLines(e.document.getText()), e.selection.active.line);
  if (!id) vscode.window.showWarningMessage('chatls: the cursor is not in a tool call');
  return id;
}

// actionRange is where to ask for a call's actions: the cursor when it is in
// the call's placeholder, else the placeholder's fence opener line.
function actionRange(e: vscode.TextEditor, id: string): vscode.Range {
  const row = e.selection.active.line;
  const ph = placeholder(splitLines(e.document.getText()), id);
  if (ph && (row < ph.header || row > (ph.closer ?? ph.opener ?? ph.header))) {
    const line = ph.opener ?? ph.header;
    return new vscode.Range(line, 0, line, 0);
  }
  return new vscode.Range(row, 0, row, 0);
}

async function applyAction(pattern: RegExp, except?: RegExp): Promise<boolean> {
  const e = chatEditor();
  const id = e && toolAtCursor(e);
  if (!e || !id) return false;
  const actions =
    (await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      e.document.uri,
      actionRange(e, id),
    )) ?? [];
  const action = actions.find((a) => pattern.test(a.title) && !(except && except.test(a.title)));
  if (!action) {
    vscode.window.showWarningMessage(`chatls: no "${pattern.source.replace(/^\^/, '').trim()}" action here`);
    return false;
  }
  if (action.edit) await vscode.workspace.applyEdit(action.edit);
  if (action.command) await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
  return true;
}

export function registerCommands(context: vscode.ExtensionContext, getClient: () => LanguageClient | undefined, restart: () => Promise<void>): void {
  const server = async <T>(command: string, args: object): Promise<T | undefined> => {
    const client = getClient();
    if (!client) {
      vscode.window.showErrorMessage('chatls: the language server is not running');
      return undefined;
    }
    return client.sendRequest<T>('workspace/executeCommand', { command, arguments: [args] });
  };
  const perCall = (command: string) => async () => {
    const e = chatEditor();
    const id = e && toolAtCursor(e);
    if (e && id) return server(command, { uri: e.document.uri.toString(), id });
  };
  const show = async (title: string, result: unknown) => {
    const text = typeof result === 'string' ? result : JSON.stringify(result, null, 2);
    const doc = await vscode.workspace.openTextDocument({ content: `# ${title}\n\n${text}\n`, language: 'markdown' });
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  };

  const commands: Record<string, (...args: unknown[]) => unknown> = {
    'chatls.client.advance': async () => {
      const e = chatEditor();
      if (!e) return;
      const r = await server<AdvanceResult>('chatls.advance', { uri: e.document.uri.toString() });
      if (r?.ready) vscode.window.setStatusBarMessage('chatls: ready to send', 4000);
      else if (r) vscode.window.setStatusBarMessage(`chatls: ${r.phase ?? 'step'} — ${r.pending ?? 0} pending, ${r.running ?? 0} running`, 4000);
      return r;
    },
    'chatls.client.runAtCursor': perCall('chatls.run'),
    'chatls.client.cancelAtCursor': perCall('chatls.cancel'),
    'chatls.client.explainAtCursor': async () => {
      const r = await perCall('chatls.explain')();
      if (r !== undefined) await show('chatls: decision trace', r);
      return r;
    },
    'chatls.client.approveAtCursor': () => applyAction(/^Approve /, /^Approve all /),
    'chatls.client.rejectAtCursor': () => applyAction(/^Reject /, /^Reject all /),
    'chatls.client.listTools': async () => {
      const e = vscode.window.activeTextEditor;
      const r = await server('chatls.listTools', e ? { uri: e.document.uri.toString() } : {});
      if (r !== undefined) await show('chatls: tools', r);
      return r;
    },
    'chatls.client.restart': restart,
    'chatls.client.showOutput': () => getClient()?.outputChannel.show(),
  };
  for (const [name, fn] of Object.entries(commands)) {
    context.subscriptions.push(vscode.commands.registerCommand(name, fn));
  }
}
