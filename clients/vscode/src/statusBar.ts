// Status bar item for the active .chat document. Its text is the server's own
// status line (the chatls/status notification, docs/editors.md "Status"): the
// same counts the diagnostics come from, with the key that moves it on. Until
// the first notice for a document arrives, it counts the placeholders in the
// text. Clicking it takes the next step (chatls.client.advance).
import * as vscode from 'vscode';
import { counts, splitLines } from './chatdoc';

/** The fields of a chatls/status notice the status bar uses. */
export interface StatusNotice {
  uri: string;
  text: string;
  waiting?: number;
  running?: number;
  sending?: boolean;
  ready?: boolean;
  problem?: string;
}

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('chatls.status', vscode.StatusBarAlignment.Left, 100);
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly notices = new Map<string, StatusNotice>();
  private serverState = 'starting';
  private serverProblem = '';

  constructor() {
    this.item.name = 'chatls';
    this.item.command = 'chatls.client.advance';
    this.subscriptions.push(
      vscode.window.onDidChangeActiveTextEditor(() => this.update()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === vscode.window.activeTextEditor?.document) this.update();
      }),
      vscode.workspace.onDidCloseTextDocument((d) => this.notices.delete(d.uri.toString())),
    );
    this.update();
  }

  /** setServerState: running, starting, stopped, or missing with why. */
  setServerState(state: string, problem = ''): void {
    this.serverState = state;
    this.serverProblem = problem;
    if (state !== 'running') this.notices.clear();
    this.update();
  }

  /** notice takes a chatls/status notification. */
  notice(n: StatusNotice): void {
    // The server's URI and VS Code's may differ in escaping; compare parsed.
    this.notices.set(vscode.Uri.parse(n.uri).toString(), n);
    this.update();
  }

  /** The item's text, also read by the self-test. */
  get text(): string {
    return this.item.text;
  }

  update(): void {
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc || doc.languageId !== 'chat') {
      this.item.hide();
      return;
    }
    if (this.serverState !== 'running') {
      this.item.text = `$(warning) chatls ${this.serverState}`;
      this.item.tooltip = this.serverProblem || 'chatls: the language server is not running (see "chatls: Show the server log")';
      this.item.command = this.serverState === 'missing' ? 'chatls.client.openServerSetting' : 'chatls.client.showOutput';
      this.item.show();
      return;
    }
    this.item.command = 'chatls.client.advance';
    const n = this.notices.get(doc.uri.toString());
    if (n) {
      this.item.text = `${icon(n)} chatls: ${n.text}`;
      this.item.tooltip = `chatls: ${n.text} — click for the next step`;
    } else {
      this.item.text = fromText(doc.getText());
      this.item.tooltip = 'chatls: approve or reject with the quick fix menu (Ctrl+.); click for the next step';
    }
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
    this.subscriptions.forEach((s) => s.dispose());
  }
}

function icon(n: StatusNotice): string {
  if (n.problem) return '$(warning)';
  if (n.sending || n.running) return '$(sync~spin)';
  if (n.waiting) return '$(bell)';
  return n.ready ? '$(check)' : '$(circle-outline)';
}

// fromText counts the placeholders in the text: the status before the
// server's first notice for the document.
function fromText(text: string): string {
  const c = counts(splitLines(text));
  const parts = [];
  if (c.pending) parts.push(`$(bell) ${c.pending} pending`);
  if (c.approved) parts.push(`$(sync~spin) ${c.approved} approved`);
  return parts.length ? `chatls: ${parts.join(' ')}` : 'chatls';
}
