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
import { nearestPending, pending, placeholder, splitLines, toolIdAt } from './chatdoc';

export interface AdvanceResult {
  phase?: string;
  pending?: number;
  running?: number;
  ready?: boolean;
  message?: string;
}

// advanceSaid is what a step did, in words. The counts are the status bar's:
// the server pushes them once its edits have landed, while this answer's
// were counted before.
export function advanceSaid(r: AdvanceResult): string | undefined {
  if (r.phase === 'send' && r.message === 'sending') return 'sending to the model';
  if (r.phase === 'send' && r.message && r.message !== 'ready to send') return `ready to send; ${r.message}`;
  const did: Record<string, string> = { categorize: 'placeholders inserted', execute: 'running what is approved', send: 'ready to send' };
  return (r.phase && did[r.phase]) || r.message;
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

// target is the call approve/reject act on: the call at the cursor when it
// waits for approval, else the nearest one that does (the status bar says
// which: it is not where the cursor is), else the call at the cursor.
function target(e: vscode.TextEditor, verb?: string): string | undefined {
  const lines = splitLines(e.document.getText());
  const row = e.selection.active.line;
  const id = toolIdAt(lines, row);
  if (id && placeholder(lines, id)?.status === 'pending') return id;
  const near = nearestPending(lines, row);
  if (near) {
    if (verb) vscode.window.setStatusBarMessage(`chatls: ${verb} ${near.name ?? 'call'} ${near.id} (line ${near.header + 1})`, 4000);
    return near.id;
  }
  if (!id) vscode.window.showWarningMessage('chatls: no call waits for approval');
  return id;
}

// jumpPending moves the cursor to the fence line of the next (1) or
// previous (-1) call that waits for approval, wrapping around.
function jumpPending(step: 1 | -1): void {
  const e = chatEditor();
  if (!e) return;
  const all = pending(splitLines(e.document.getText()));
  if (all.length === 0) {
    vscode.window.setStatusBarMessage('chatls: no call waits for approval', 4000);
    return;
  }
  const row = e.selection.active.line;
  const list = step > 0 ? all : [...all].reverse();
  const at = (p: { header: number; opener?: number }) => p.opener ?? p.header;
  const pick = list.find((p) => (step > 0 ? at(p) > row : at(p) < row)) ?? list[0];
  const pos = new vscode.Position(at(pick), 0);
  e.selection = new vscode.Selection(pos, pos);
  e.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

async function applyAction(pattern: RegExp, except?: RegExp, verb?: string): Promise<boolean> {
  const e = chatEditor();
  const id = e && target(e, verb);
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

/** What registerCommands gives the language client's middleware. */
export interface Commands {
  /** explain shows the decision for a call as the palette command does. */
  explain(args: { uri: string; id: string }): Promise<unknown>;
}

export function registerCommands(context: vscode.ExtensionContext, getClient: () => LanguageClient | undefined, restart: () => Promise<void>): Commands {
  const server = async <T>(command: string, args: object): Promise<T | undefined> => {
    const client = getClient();
    if (!client) {
      vscode.window.showErrorMessage('chatls: the language server is not running (the status bar says why)');
      return undefined;
    }
    return client.sendRequest<T>('workspace/executeCommand', { command, arguments: [args] });
  };
  const perCall = (command: string, extra: object = {}) => async () => {
    const e = chatEditor();
    const id = e && toolAtCursor(e);
    if (e && id) return server(command, { uri: e.document.uri.toString(), id, ...extra });
  };
  // show renders the server's markdown in a preview beside the conversation.
  // The text lives in a read-only chatls: document, so closing it never asks
  // to save; showing the same name again refreshes it.
  const pages = new ReadOnlyPages();
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(ReadOnlyPages.scheme, pages));
  const show = async (name: string, result: { markdown?: string } | undefined) => {
    if (typeof result?.markdown !== 'string') return;
    const uri = pages.set(name, result.markdown);
    await vscode.workspace.openTextDocument(uri);
    await vscode.commands.executeCommand('markdown.showPreviewToSide', uri);
  };

  // explain is the palette's explain and the Explain lens's click (the
  // client's middleware sends the lens here), so both show the same page.
  // format markdown: we show the answer's document, so no message with it.
  const explain = async (args: { uri: string; id: string }) => {
    const r = await server<{ markdown?: string }>('chatls.explain', { uri: args.uri, id: args.id, format: 'markdown' });
    await show('explain.md', r);
    return r;
  };

  const commands: Record<string, (...args: unknown[]) => unknown> = {
    'chatls.client.advance': async () => {
      const e = chatEditor();
      if (!e) return;
      const r = await server<AdvanceResult>('chatls.advance', { uri: e.document.uri.toString() });
      const said = r && advanceSaid(r);
      if (said) vscode.window.setStatusBarMessage(`chatls: ${said}`, 4000);
      return r;
    },
    'chatls.client.runAtCursor': perCall('chatls.run'),
    // In a tool call: stop that call. Elsewhere: stop the answer being
    // written (chatls.cancel without an id; what arrived stays).
    'chatls.client.cancelAtCursor': async () => {
      const e = chatEditor();
      if (!e) return;
      const id = toolIdAt(splitLines(e.document.getText()), e.selection.active.line);
      const r = await server('chatls.cancel', id ? { uri: e.document.uri.toString(), id } : { uri: e.document.uri.toString() });
      vscode.window.setStatusBarMessage(id ? `chatls: cancelled ${id}` : 'chatls: stopped the answer', 4000);
      return r;
    },
    'chatls.client.explainAtCursor': async () => {
      const e = chatEditor();
      const id = e && toolAtCursor(e);
      if (e && id) return explain({ uri: e.document.uri.toString(), id });
    },
    'chatls.client.approveAtCursor': () => applyAction(/^Approve /, /^Approve all /, 'approving'),
    'chatls.client.rejectAtCursor': () => applyAction(/^Reject /, /^Reject all /, 'rejecting'),
    'chatls.client.nextPending': () => jumpPending(1),
    'chatls.client.previousPending': () => jumpPending(-1),
    'chatls.client.listTools': async () => {
      const e = vscode.window.activeTextEditor;
      const uri = e?.document.languageId === 'chat' ? { uri: e.document.uri.toString() } : {};
      const r = await server<{ markdown?: string }>('chatls.listTools', { ...uri, format: 'markdown' });
      await show('tools.md', r);
      return r;
    },
    'chatls.client.restart': restart,
    'chatls.client.showOutput': () => getClient()?.outputChannel.show(),
  };
  for (const [name, fn] of Object.entries(commands)) {
    context.subscriptions.push(vscode.commands.registerCommand(name, fn));
  }
  return { explain };
}

// ReadOnlyPages are the markdown pages chatls shows (explain, the tool list)
// as documents of the chatls: scheme.
class ReadOnlyPages implements vscode.TextDocumentContentProvider {
  static readonly scheme = 'chatls';
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  set(name: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: ReadOnlyPages.scheme, path: '/' + name });
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }
}
