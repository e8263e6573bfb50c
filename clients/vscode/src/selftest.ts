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

    check('status bar counts the pending call', /1 pending/.test(api.statusText()), api.statusText());

    const opener = original.split('\n').findIndex((l) => l.startsWith('```flemma:tool'));
    const actions =
      (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, new vscode.Range(opener, 0, opener, 0))) ?? [];
    const titles = actions.map((a) => a.title);
    check('Approve quick fix', titles.some((t) => t.startsWith('Approve bash: $ echo hello-from-chatls')), titles);
    check('Reject quick fix', titles.some((t) => t.startsWith('Reject bash')), titles);

    const commands = await vscode.commands.getCommands(true);
    const wanted = ['chatls.advance', 'chatls.run', 'chatls.client.advance', 'chatls.client.approveAtCursor', 'chatls.client.runAtCursor'];
    check('server and client commands registered', wanted.every((c) => commands.includes(c)), wanted.filter((c) => !commands.includes(c)));

    // Approve from inside the tool use's JSON, as the key binding would.
    const jsonLine = original.split('\n').findIndex((l) => l.includes('"command":"echo hello-from-chatls"'));
    editor.selection = new vscode.Selection(jsonLine, 1, jsonLine, 1);
    await vscode.commands.executeCommand('chatls.client.approveAtCursor');
    const written = await until(20000, () => /\nhello-from-chatls\n/.test(doc.getText()));
    check('approve command: result written into the document', written, doc.getText());
    await until(3000, () => !/pending|running/.test(api.statusText()));
    check('status bar idle after the run', !/pending|running/.test(api.statusText()), api.statusText());

    const adv = await vscode.commands.executeCommand<{ ready?: boolean }>('chatls.client.advance');
    check('advance command: ready to send', adv?.ready === true, adv);

    // User settings set maxConcurrent; the workspace's .vscode/settings.json
    // tries autoApprove, deny, sandbox.enabled and plugins (user-only, dropped)
    // and placeholderStyle (allowed from a workspace).
    check(
      'only explicitly-set settings are sent, user-only keys never from the workspace',
      JSON.stringify(api.serverSettings()) === JSON.stringify({ tools: { maxConcurrent: 2 }, placeholderStyle: 'fence' }),
      api.serverSettings(),
    );

    await doc.save();
    check('saved to disk', fs.readFileSync(uri.fsPath, 'utf8').includes('\nhello-from-chatls\n'));
  } catch (e) {
    res.error = String((e as Error)?.stack ?? e);
  }
  res.done = true;
  save();
}
