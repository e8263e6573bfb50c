// Self-test through VS Code's own extension API, run inside code-server by
// clients/vscode/test/ui.test.js (CHATLS_SELFTEST_RESULT names the JSON file
// it writes). It goes through the same doors a user does: the language
// feature providers, our commands, the status bar. Each step is written as it
// completes so a failure shows how far it got.
import * as fs from 'fs';
import * as vscode from 'vscode';
import type { ChatlsApi } from './extension';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(ms: number, fn: () => T | Promise<T>): Promise<T> {
  const end = Date.now() + ms;
  let v = await fn();
  while (!v && Date.now() < end) {
    await sleep(100);
    v = await fn();
  }
  return v;
}

function hintLabel(h: vscode.InlayHint): string {
  return typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join('');
}

export async function runSelfTest(api: ChatlsApi, out: string): Promise<void> {
  const res: { checks: { name: string; ok: boolean; detail?: unknown }[]; done?: boolean; error?: string } = { checks: [] };
  const save = () => fs.writeFileSync(out, JSON.stringify(res, null, 2));
  const check = (name: string, ok: boolean, detail?: unknown) => {
    res.checks.push({ name, ok, detail: ok ? undefined : detail });
    save();
  };
  try {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error('no workspace folder');
    const uri = vscode.Uri.joinPath(folder.uri, 'selftest.chat');
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    check('language id is chat', doc.languageId === 'chat', doc.languageId);
    const original = doc.getText();

    const client = await until(10000, () => api.client()?.isRunning() && api.client());
    check('language client running', !!client);

    const info = await until(10000, () =>
      vscode.languages.getDiagnostics(uri).find((d) => d.severity === vscode.DiagnosticSeverity.Information),
    );
    check('pending approval diagnostic (Information)', !!info, vscode.languages.getDiagnostics(uri));
    check('opening the file changed nothing', doc.getText() === original && !doc.isDirty);

    const all = new vscode.Range(0, 0, doc.lineCount, 0);
    const hints = await until(10000, async () => {
      const hs = (await vscode.commands.executeCommand<vscode.InlayHint[]>('vscode.executeInlayHintProvider', uri, all)) ?? [];
      return hs.length ? hs : undefined;
    });
    const labels = (hints ?? []).map(hintLabel);
    check('inlay hint previews the call', labels.some((l) => l.startsWith('bash: $ echo hello-from-chatls')), labels);

    // The server's pushed status, with this extension's key names in it.
    const waits = await until(10000, () => api.statusText().includes('1 call waits for approval (press Ctrl+Alt+Y (approve))'));
    check("status bar shows the server's status with our key", waits, api.statusText());

    const opener = original.split('\n').findIndex((l) => l.startsWith('```flemma:tool'));
    const actions =
      (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, new vscode.Range(opener, 0, opener, 0))) ?? [];
    const titles = actions.map((a) => a.title);
    check('Approve quick fix', titles.some((t) => t.startsWith('Approve bash: $ echo hello-from-chatls')), titles);
    check('Reject quick fix', titles.some((t) => t.startsWith('Reject bash')), titles);

    const commands = await vscode.commands.getCommands(true);
    const wanted = ['chatls.advance', 'chatls.run', 'chatls.client.advance', 'chatls.client.approveAtCursor', 'chatls.client.runAtCursor', 'chatls.client.nextPending', 'chatls.client.previousPending'];
    check('server and client commands registered', wanted.every((c) => commands.includes(c)), wanted.filter((c) => !commands.includes(c)));

    // Explain, from inside the tool use's JSON: the server's markdown,
    // rendered in a preview beside the conversation.
    const jsonLine = original.split('\n').findIndex((l) => l.includes('"command":"echo hello-from-chatls"'));
    editor.selection = new vscode.Selection(jsonLine, 1, jsonLine, 1);
    const explained = await vscode.commands.executeCommand<{ markdown?: string }>('chatls.client.explainAtCursor');
    const md = explained?.markdown ?? '';
    check('explain answers markdown', md.startsWith('# `bash`') && md.includes('asks for your approval'), explained);
    check(
      'explain opens as a read-only chatls: document',
      vscode.workspace.textDocuments.some((d) => d.uri.scheme === 'chatls' && d.getText() === md),
      vscode.workspace.textDocuments.map((d) => d.uri.toString()),
    );
    const preview = () =>
      vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && /markdown\.preview/.test(t.input.viewType)));
    const previewOpen = await until(10000, preview);
    check('explain is rendered in the markdown preview', previewOpen, vscode.window.tabGroups.all.map((g) => g.tabs.map((t) => t.label)));
    // The Explain lens, clicked as VS Code runs it: the same preview with the
    // same text, not the server's message (its page squeezed into a toast).
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
    const lens = lenses.find((l) => l.command?.title === 'Explain')?.command;
    check('Explain lens above the placeholder', lens?.command === 'chatls.explain', lenses.map((l) => l.command?.title));
    if (lens) await vscode.commands.executeCommand(lens.command, ...(lens.arguments ?? []));
    const lensPreview = await until(10000, preview);
    const page = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'chatls' && d.uri.path === '/explain.md');
    check('the Explain lens shows the explain command\'s page', lensPreview && page?.getText() === md, { lensPreview, page: page?.getText(), md });
    const tools = await vscode.commands.executeCommand<{ markdown?: string }>('chatls.client.listTools');
    check('tool list as markdown', /\| `bash` \|/.test(tools?.markdown ?? ''), tools);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const again = await vscode.window.showTextDocument(doc);
    // The next-pending command goes to the call's placeholder.
    again.selection = new vscode.Selection(0, 0, 0, 0);
    await vscode.commands.executeCommand('chatls.client.nextPending');
    check('next pending call: the cursor on its placeholder', again.selection.active.line === opener, again.selection.active.line);

    // Approve from the first line, outside any call, as the key binding
    // would: the nearest pending call is the one approved.
    again.selection = new vscode.Selection(0, 0, 0, 0);
    await vscode.commands.executeCommand('chatls.client.approveAtCursor');
    const written = await until(20000, () => /\nhello-from-chatls\n/.test(doc.getText()));
    check('approve command: result written into the document', written, doc.getText());
    const ready = await until(10000, () => api.statusText().includes('ready to send (press Ctrl+] (next step))'));
    check('status bar: ready to send after the run', ready, api.statusText());

    // Phase 3: the next step sends to the model (ui.test.js configured the
    // server with an offline scripted model) and the answer streams in.
    const adv = await vscode.commands.executeCommand<{ phase?: string; message?: string }>('chatls.client.advance');
    check('advance sends the conversation to the model', adv?.phase === 'send' && adv?.message === 'sending', adv);
    const answered = await until(20000, () => doc.getText().includes('Hello from the scripted model.'));
    check('the answer is written into the document', answered, doc.getText());
    const after = await until(10000, () => /write your question under the last @You:/.test(api.statusText()));
    check('status bar: your turn again', after, api.statusText());

    // User settings set maxConcurrent; the workspace's .vscode/settings.json
    // tries autoApprove, deny, sandbox.enabled and plugins (user-only, dropped)
    // and placeholderStyle (allowed from a workspace).
    const keys = { advance: 'Ctrl+]', run: 'Alt+Enter', approve: 'Ctrl+Alt+Y', reject: 'Ctrl+Alt+N', nextPending: 'Ctrl+Alt+]', prevPending: 'Ctrl+Alt+[' };
    check(
      'only explicitly-set settings (and our key names) are sent, user-only keys never from the workspace',
      JSON.stringify(api.serverSettings()) === JSON.stringify({ keys, tools: { maxConcurrent: 2 }, placeholderStyle: 'fence' }),
      api.serverSettings(),
    );

    await doc.save();
    check('saved to disk', /\nhello-from-chatls\n[^]*Hello from the scripted model\./.test(fs.readFileSync(uri.fsPath, 'utf8')));
  } catch (e) {
    res.error = String((e as Error)?.stack ?? e);
  }
  res.done = true;
  save();
}
