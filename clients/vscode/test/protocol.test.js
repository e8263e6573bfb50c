// Exact-protocol client test (EDITORS.md §5): the JSON-RPC stack that
// vscode-languageclient uses, driving the real chatls binary over stdio.
// It behaves like an editor: it applies every edit it accepts (its own code
// action and the server's workspace/applyEdit) and reports each as a didChange.
//
//   CHATLS_BIN=/path/to/chatls node --test test/protocol.test.js
const { test } = require('node:test');
const assert = require('node:assert/strict');
const P = require('vscode-languageserver-protocol/node');
const { Editor, BIN } = require('./editor.js');

test('approve a pending bash call and get its output', { skip: !BIN && 'CHATLS_BIN not set', timeout: 120000 }, async () => {
  const ed = Editor.start();
  try {
    const init = await ed.initialize();
    const caps = init.capabilities;
    assert.equal(caps.positionEncoding ?? 'utf-16', 'utf-16');
    for (const c of ['chatls.advance', 'chatls.run', 'chatls.cancel', 'chatls.alwaysAllow', 'chatls.explain', 'chatls.listTools']) {
      assert.ok(caps.executeCommandProvider.commands.includes(c), `executeCommandProvider lacks ${c}`);
    }
    assert.ok(caps.inlayHintProvider, 'inlayHintProvider');
    assert.ok(caps.codeActionProvider, 'codeActionProvider');
    await ed.conn.sendNotification(P.InitializedNotification.type, {});
    await ed.open('t.chat');

    await ed.until(() => ed.diagnostics.some((d) => d.severity === P.DiagnosticSeverity.Information), 5000, 'the pending-approval diagnostic');
    assert.equal(ed.applyEdits, 0, 'opening the document must edit nothing');
    assert.equal(ed.doc.version, 1);

    const opener = ed.line((l) => l.startsWith('```flemma:tool status=pending'));
    const hints = await ed.conn.sendRequest(P.InlayHintRequest.type, {
      textDocument: { uri: ed.doc.uri },
      range: { start: { line: 0, character: 0 }, end: { line: ed.doc.lineCount, character: 0 } },
    });
    const labels = (hints ?? []).map((h) => (typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join('')));
    const hint = (hints ?? []).find((h, i) => labels[i].startsWith('bash: $ echo hello-from-chatls'));
    assert.ok(hint, `no preview hint in ${JSON.stringify(labels)}`);
    assert.equal(hint.position.line, opener, 'the hint sits on the fence opener line');
    assert.match(labels[hints.indexOf(hint)], /# saying hello/);

    const actions = await ed.codeActions(opener);
    const titles = actions.map((a) => a.title);
    const approve = actions.find((a) => a.title.startsWith('Approve bash: $ echo hello-from-chatls'));
    assert.ok(approve, `no Approve action in ${JSON.stringify(titles)}`);
    assert.ok(titles.some((t) => t.startsWith('Reject bash')), `no Reject action in ${JSON.stringify(titles)}`);
    assert.ok(approve.edit, 'Approve is a plain WorkspaceEdit');

    // The user applies the approval; the server sees it in didChange and runs the tool.
    assert.ok(ed.applyWorkspaceEdit(approve.edit), 'approve edit applies');
    assert.match(ed.doc.getText(), /status=approved/);
    // 0.7 s idle; a loaded machine took over 15 s.
    await ed.until(() => /\nhello-from-chatls\n/.test(ed.doc.getText()), 90000, 'the result in the document');
    assert.doesNotMatch(ed.doc.getText(), /```flemma:/, 'the placeholder is replaced');
    // An instant echo is not announced (the server waits 100 ms before
    // "running" hints and $/progress); if this machine was slow enough to
    // announce it, begin and end come as a pair.
    assert.ok(ed.progress.length === 0 || (ed.progress.includes('begin') && ed.progress.includes('end')), `progress: ${ed.progress}`);

    const adv = await ed.execute('chatls.advance', { uri: ed.doc.uri });
    assert.equal(adv.ready, true, `advance: ${JSON.stringify(adv)}`);
    const tools = JSON.stringify(await ed.execute('chatls.listTools', { uri: ed.doc.uri }));
    assert.match(tools, /"bash"/);

    const wrote = ed.applyEdits;
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(ed.applyEdits, wrote, 'no further edits after the result');
  } finally {
    assert.equal(await ed.close(), 0, 'server exits 0 after shutdown/exit');
  }
});

test('reject a pending call: the fixed rejection text is written', { skip: !BIN && 'CHATLS_BIN not set', timeout: 30000 }, async () => {
  const ed = Editor.start();
  try {
    await ed.initialize();
    await ed.conn.sendNotification(P.InitializedNotification.type, {});
    await ed.open('r.chat');
    await ed.until(() => ed.diagnostics.length > 0, 5000, 'diagnostics');
    const opener = ed.line((l) => l.startsWith('```flemma:tool status=pending'));
    const reject = (await ed.codeActions(opener)).find((a) => a.title.startsWith('Reject bash'));
    assert.ok(reject?.edit, 'Reject is a plain WorkspaceEdit');
    ed.applyWorkspaceEdit(reject.edit);
    await ed.until(() => ed.doc.getText().includes('This tool has been rejected by the user.'), 10000, 'the rejection text');
    assert.doesNotMatch(ed.doc.getText(), /\nhello-from-chatls\n/, 'a rejected call never runs');
  } finally {
    assert.equal(await ed.close(), 0, 'server exits 0 after shutdown/exit');
  }
});
