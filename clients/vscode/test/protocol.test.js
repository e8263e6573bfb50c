// Exact-protocol client test (EDITORS.md §5): the JSON-RPC stack that
// vscode-languageclient uses, driving the real chatls binary over stdio.
// It behaves like an editor: it applies every edit it accepts (its own code
// action and the server's workspace/applyEdit) and reports each as a didChange.
//
//   CHATLS_BIN=/path/to/chatls node --test test/protocol.test.js
const { test } = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { TextDocument } = require('vscode-languageserver-textdocument');
const P = require('vscode-languageserver-protocol/node');

const BIN = process.env.CHATLS_BIN;
const FIXTURE = path.join(__dirname, '..', '..', 'testdata', 'approve-echo.chat');

// Editor wraps one server process and one document.
class Editor {
  constructor() {
    this.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chatls-proto-'));
    for (const d of ['ws', 'config', 'state']) fs.mkdirSync(path.join(this.tmp, d));
    this.proc = cp.spawn(BIN, ['--log-file', path.join(this.tmp, 'chatls.log')], {
      cwd: path.join(this.tmp, 'ws'),
      env: { ...process.env, XDG_CONFIG_HOME: path.join(this.tmp, 'config'), XDG_STATE_HOME: path.join(this.tmp, 'state') },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.conn = P.createProtocolConnection(new P.StreamMessageReader(this.proc.stdout), new P.StreamMessageWriter(this.proc.stdin));
    this.diagnostics = [];
    this.progress = [];
    this.applyEdits = 0;
    this.waiters = [];
    this.conn.onNotification(P.PublishDiagnosticsNotification.type, (p) => {
      if (this.doc && p.uri === this.doc.uri) this.diagnostics = p.diagnostics;
      this.wake();
    });
    this.conn.onRequest(P.WorkDoneProgressCreateRequest.type, () => null);
    this.conn.onNotification('$/progress', (p) => {
      this.progress.push(p.value.kind);
      this.wake();
    });
    this.conn.onRequest(P.InlayHintRefreshRequest.type, () => null);
    this.conn.onRequest(P.ApplyWorkspaceEditRequest.type, (p) => {
      this.applyEdits++;
      const applied = this.applyWorkspaceEdit(p.edit);
      this.wake();
      return { applied };
    });
    this.conn.onRequest(P.ConfigurationRequest.type, (p) => p.items.map(() => ({})));
    this.conn.listen();
  }

  // start returns a new Editor; the server process never outlives a failure here.
  static start() {
    let ed;
    try {
      ed = new Editor();
      return ed;
    } catch (e) {
      ed?.proc?.kill();
      throw e;
    }
  }

  wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  // until resolves when cond() holds, re-checking on every server message.
  until(cond, ms, what) {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
      const poll = () => {
        if (cond()) {
          clearTimeout(t);
          resolve();
        } else this.waiters.push(poll);
      };
      poll();
    });
  }

  async initialize() {
    const root = path.join(this.tmp, 'ws');
    return this.conn.sendRequest(P.InitializeRequest.type, {
      processId: process.pid,
      rootUri: 'file://' + root,
      workspaceFolders: [{ uri: 'file://' + root, name: 'ws' }],
      clientInfo: { name: 'chatls-protocol-test' },
      capabilities: {
        general: { positionEncodings: ['utf-16'] },
        window: { workDoneProgress: true },
        workspace: { applyEdit: true, workspaceEdit: { documentChanges: true }, configuration: true, inlayHint: { refreshSupport: true } },
        textDocument: {
          synchronization: { dynamicRegistration: false },
          publishDiagnostics: {},
          codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'refactor', 'source'] } } },
          inlayHint: {},
        },
      },
    });
  }

  async open(name) {
    const text = fs.readFileSync(FIXTURE, 'utf8');
    const file = path.join(this.tmp, 'ws', name);
    fs.writeFileSync(file, text);
    this.doc = TextDocument.create('file://' + file, 'chat', 1, text);
    await this.conn.sendNotification(P.DidOpenTextDocumentNotification.type, {
      textDocument: { uri: this.doc.uri, languageId: 'chat', version: 1, text },
    });
  }

  // edit applies TextEdits locally and sends them as one incremental didChange.
  edit(edits) {
    const version = this.doc.version + 1;
    // Sent in reverse order so each range refers to the text before it.
    const changes = [...edits].sort((a, b) => this.doc.offsetAt(b.range.start) - this.doc.offsetAt(a.range.start));
    this.doc = TextDocument.update(this.doc, changes.map((e) => ({ range: e.range, text: e.newText })), version);
    this.conn.sendNotification(P.DidChangeTextDocumentNotification.type, {
      textDocument: { uri: this.doc.uri, version },
      contentChanges: changes.map((e) => ({ range: e.range, text: e.newText })),
    });
  }

  applyWorkspaceEdit(we) {
    for (const dc of we.documentChanges ?? []) {
      if (dc.textDocument.uri !== this.doc.uri) return false;
      if (dc.textDocument.version != null && dc.textDocument.version !== this.doc.version) return false;
      this.edit(dc.edits);
    }
    for (const [uri, edits] of Object.entries(we.changes ?? {})) {
      if (uri !== this.doc.uri) return false;
      this.edit(edits);
    }
    return true;
  }

  execute(command, args) {
    return this.conn.sendRequest(P.ExecuteCommandRequest.type, { command, arguments: [args] });
  }

  async codeActions(line) {
    const pos = { line, character: 0 };
    return (await this.conn.sendRequest(P.CodeActionRequest.type, {
      textDocument: { uri: this.doc.uri },
      range: { start: pos, end: pos },
      context: { diagnostics: this.diagnostics },
    })) ?? [];
  }

  line(pred) {
    return this.doc.getText().split('\n').findIndex(pred);
  }

  async close() {
    // Bounded: a server that ignores shutdown is killed, and the test says so.
    let timer;
    const reply = await Promise.race([
      this.conn.sendRequest(P.ShutdownRequest.type).then(() => 'ok'),
      new Promise((r) => (timer = setTimeout(() => r('timeout'), 3000))),
    ]);
    clearTimeout(timer);
    if (reply !== 'ok') {
      this.proc.kill();
      this.conn.dispose();
      return 'no shutdown reply';
    }
    await this.conn.sendNotification(P.ExitNotification.type);
    const code = await new Promise((r) => {
      if (this.proc.exitCode !== null) return r(this.proc.exitCode);
      const t = setTimeout(() => (this.proc.kill(), r('killed')), 3000);
      this.proc.on('exit', (c) => (clearTimeout(t), r(c)));
    });
    this.conn.dispose();
    return code;
  }
}

test('approve a pending bash call and get its output', { skip: !BIN && 'CHATLS_BIN not set', timeout: 30000 }, async () => {
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
    await ed.until(() => /\nhello-from-chatls\n/.test(ed.doc.getText()), 15000, 'the result in the document');
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
