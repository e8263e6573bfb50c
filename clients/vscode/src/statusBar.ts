// Status bar item for the active .chat document: pending approvals and
// running tools, counted from the text (placeholders), so it is right in any
// server state. Clicking it takes the next step (chatls.client.advance).
import * as vscode from 'vscode';
import { counts, splitLines } from './chatdoc';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('chatls.status', vscode.StatusBarAlignment.Left, 100);
  private readonly subscriptions: vscode.Disposable[] = [];
  private serverState = 'starting';

  constructor() {
    this.item.name = 'chatls';
    this.item.command = 'chatls.client.advance';
    this.subscriptions.push(
      vscode.window.onDidChangeActiveTextEditor(() => this.update()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === vscode.window.activeTextEditor?.document) this.update();
      }),
    );
    this.update();
  }

  setServerState(state: string): void {
    this.serverState = state;
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
      this.item.tooltip = 'chatls: the language server is not running (see "chatls: Show the server log")';
      this.item.command = 'chatls.client.showOutput';
      this.item.show();
      return;
    }
    const c = counts(splitLines(doc.getText()));
    this.item.command = 'chatls.client.advance';
    if (c.pending === 0 && c.approved === 0) {
      this.item.text = '$(check) chatls';
      this.item.tooltip = 'chatls: nothing waits — click for the next step';
    } else {
      const parts = [];
      if (c.pending) parts.push(`$(bell) ${c.pending} pending`);
      if (c.approved) parts.push(`$(sync~spin) ${c.approved} running`);
      this.item.text = `chatls: ${parts.join(' ')}`;
      this.item.tooltip = 'chatls: approve or reject with the quick fix menu (Ctrl+.); click for the next step';
    }
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
    this.subscriptions.forEach((s) => s.dispose());
  }
}
