// A scripted editor for the protocol tests: the JSON-RPC stack that
// vscode-languageclient uses, driving the real chatls binary over stdio. It
// behaves like VS Code: it applies every edit it accepts (its own code
// action and the server's workspace/applyEdit) and reports each at once as
// an incremental didChange. Shared by protocol.test.js and conversation.test.js.
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
  // opts.config: the XDG_CONFIG_HOME to use (default: an empty one).
  constructor(opts = {}) {
    this.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chatls-proto-'));
    for (const d of ['ws', 'config', 'state']) fs.mkdirSync(path.join(this.tmp, d));
    this.status = new Map(); // uri -> the last chatls/status params
    this.proc = cp.spawn(BIN, ['--log-file', path.join(this.tmp, 'chatls.log')], {
      cwd: path.join(this.tmp, 'ws'),
      env: { ...process.env, XDG_CONFIG_HOME: opts.config ?? path.join(this.tmp, 'config'), XDG_STATE_HOME: path.join(this.tmp, 'state') },
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
    this.conn.onNotification('chatls/status', (p) => {
      this.status.set(p.uri, p);
      this.wake();
    });
    this.conn.listen();
  }

  // start returns a new Editor; the server process never outlives a failure here.
  static start(opts) {
    let ed;
    try {
      ed = new Editor(opts);
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

  // open writes name (the fixture, or text) into the workspace and opens it.
  async open(name, text = fs.readFileSync(FIXTURE, 'utf8')) {
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

  // statusText is the last pushed status of the open document.
  statusText() {
    return this.status.get(this.doc?.uri)?.text ?? '';
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

module.exports = { Editor, BIN };
