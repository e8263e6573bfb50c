// Whole conversations through the protocol VS Code speaks (editor.js: the
// JSON-RPC stack of vscode-languageclient, applying edits as VS Code does),
// with the extension's own choice of the call to approve (dist/chatdoc.js).
// The conversations of clients/nvim/test/conversation.lua: three turns
// against the script provider and against a local Anthropic wire-format
// server (../../testdata/anthropic-server.js), the whole document compared
// after each turn with ../../testdata/three-turn/; cancel (answered within
// 200 ms), a 401 (the text as it was), retries (the pushed status says so).
//
//   CHATLS_BIN=/path/to/chatls node --test test/conversation.test.js
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Editor, BIN } = require('./editor.js');
const { nearestPending, pending, splitLines } = require('../dist/chatdoc.js');

const TESTDATA = path.join(__dirname, '..', '..', 'testdata');
const EXPECT = path.join(TESTDATA, 'three-turn');
const read = (name) => fs.readFileSync(path.join(EXPECT, name), 'utf8');
const LONG = 60000; // generous: a busy machine
const WIRE = '```lua\nflemma.opt.provider = "wire"\n```\n';
const MARKER = '<!-- flemma:aborted: Response interrupted by the user. -->';

let tmp;
let api;
let config;

before(async () => {
  if (!BIN) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chatls-conv-'));
  const portFile = path.join(tmp, 'api.port');
  api = cp.spawn(process.execPath, [path.join(TESTDATA, 'anthropic-server.js'), path.join(EXPECT, 'responses.json'), portFile], { stdio: 'inherit' });
  const end = Date.now() + 20000;
  while (!(fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8'))) {
    if (Date.now() > end) throw new Error('the local provider API did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  config = path.join(tmp, 'config');
  fs.mkdirSync(path.join(config, 'chatls'), { recursive: true });
  fs.writeFileSync(
    path.join(config, 'chatls', 'config.toml'),
    `provider = "replay"
model = "scripted"
[providers.replay]
type = "script"
file = ${JSON.stringify(path.join(EXPECT, 'responses.json'))}
[providers.replay.models.scripted]
price = { input = 3, output = 15 }
[providers.wire]
type = "anthropic"
baseURL = "http://127.0.0.1:${fs.readFileSync(portFile, 'utf8')}/"
apiKeyEnv = "FAKE_API_KEY"
model = "claude-sonnet-4-5"
`,
  );
  process.env.FAKE_API_KEY = 'local-test-key';
});

after(() => {
  api?.kill();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function start(name, text) {
  const ed = Editor.start({ config });
  await ed.initialize();
  await ed.conn.sendNotification('initialized', {});
  await ed.open(name, text);
  await ed.until(() => ed.statusText() !== '', LONG, 'the first pushed status');
  return ed;
}

// settle waits until the document is want and the status matches.
async function settle(ed, want, status, what) {
  try {
    await ed.until(() => ed.doc.getText() === want && status.test(ed.statusText()), LONG, what);
  } catch (e) {
    assert.equal(ed.doc.getText(), want, `${what} (status: ${ed.statusText()})`);
    throw e;
  }
}

// act applies the server's action matching title for the call the
// extension's approve/reject key picks with the cursor on row.
async function act(ed, row, title) {
  const lines = splitLines(ed.doc.getText());
  const call = nearestPending(lines, row);
  assert.ok(call, 'a pending call');
  const action = (await ed.codeActions(call.opener ?? call.header)).find((a) => title.test(a.title));
  assert.ok(action?.edit, `no ${title} action`);
  assert.ok(ed.applyWorkspaceEdit(action.edit), 'the action applies');
  return call;
}

async function conversation(name, prefix) {
  const ed = await start(name, prefix + read('start.chat'));
  try {
    const sent = await ed.execute('chatls.advance', { uri: ed.doc.uri });
    assert.equal(sent?.message, 'sending', JSON.stringify(sent));
    await settle(ed, prefix + read('after-1.chat'), /waits for approval/, 'turn 1: the answer and its pending call');
    const first = await act(ed, 0, /^Approve bash/);
    assert.deepEqual([first.id, first.name, first.header + 1], ['toolu_01', 'bash', 14 + prefix.split('\n').length - 1]);
    await settle(ed, prefix + read('after-2.chat'), /waits for approval/, 'turn 2: the result, sent again, the second answer');
    assert.equal(pending(splitLines(ed.doc.getText())).length, 1);
    await act(ed, 0, /^Reject bash/);
    await settle(ed, prefix + read('after-3.chat'), /write your question under the last @You:/, 'turn 3: the rejection, the final answer');
    return ed;
  } catch (e) {
    await ed.close();
    throw e;
  }
}

test('three turns with the script provider', { skip: !BIN && 'CHATLS_BIN not set', timeout: 4 * LONG }, async () => {
  const ed = await conversation('three-turn.chat', '');
  try {
    const usage = 'last answer: scripted · 22.4k in (10.1k cached) · 850 out · $';
    await ed.until(() => ed.statusText().includes(usage), 10000, 'the usage in the status').catch(() => {});
    assert.ok(ed.statusText().includes(usage), `the status shows the last answer's usage: ${ed.statusText()}`);
    const pushed = ed.status.get(ed.doc.uri)?.usage;
    assert.ok(pushed && typeof pushed === 'object', `the status carries a usage object: ${JSON.stringify(ed.status.get(ed.doc.uri))}`);
  } finally {
    await ed.close();
  }
});

test('three turns with a local server speaking the Anthropic wire format', { skip: !BIN && 'CHATLS_BIN not set', timeout: 4 * LONG }, async () => {
  await (await conversation('wire.chat', WIRE)).close();
});

test('cancel mid-answer: answered within 200 ms, the abort marker', { skip: !BIN && 'CHATLS_BIN not set', timeout: 3 * LONG }, async () => {
  const begin = WIRE + '@You:\n[slow] Count for me.\n';
  const ed = await start('slow.chat', begin);
  try {
    await ed.execute('chatls.advance', { uri: ed.doc.uri });
    await ed.until(() => ed.doc.getText().includes('word3 '), LONG, 'the slow answer');
    const t0 = performance.now();
    await ed.execute('chatls.cancel', { uri: ed.doc.uri });
    const ms = performance.now() - t0;
    assert.ok(ms < 200, `chatls.cancel answered after ${ms.toFixed(0)} ms`);
    await ed.until(() => ed.doc.getText().includes(MARKER) && ed.doc.getText().endsWith('@You:\n\n'), LONG, 'the abort marker and @You:');
    const text = ed.doc.getText();
    const m = new RegExp(`^[\\s\\S]*?\\n@Assistant:\\n([\\s\\S]*?)\\n+${MARKER.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n\\n@You:\\n\\n$`).exec(text);
    assert.ok(text.startsWith(begin + '\n@Assistant:\n') && m, text);
    const words = m[1].trim().split(' ');
    assert.ok(words.length >= 3, text);
    assert.deepEqual(words, words.map((_, i) => `word${i + 1}`), 'what arrived, once and in order');
    assert.equal(text.split(MARKER).length, 2, 'the abort marker once');
  } finally {
    await ed.close();
  }
});

test('a 401 leaves the document as it was', { skip: !BIN && 'CHATLS_BIN not set', timeout: 3 * LONG }, async () => {
  const begin = WIRE + '@You:\n[401] Hello?\n';
  const ed = await start('refused.chat', begin);
  try {
    await ed.execute('chatls.advance', { uri: ed.doc.uri }).catch(() => {});
    await ed.until(() => ed.diagnostics.some((d) => d.message.includes('401')), LONG, 'the 401 diagnostic');
    await ed.until(() => ed.doc.getText() === begin, LONG, 'the text as it was').catch(() => {});
    assert.equal(ed.doc.getText(), begin, 'no @Assistant: left');
  } finally {
    await ed.close();
  }
});

test('retries show in the pushed status, then the answer arrives once', { skip: !BIN && 'CHATLS_BIN not set', timeout: 3 * LONG }, async () => {
  const ed = await start('busy.chat', WIRE + '@You:\n[overloaded] Run two commands for me.\n');
  try {
    let retry = '';
    const want = WIRE + read('after-1.chat').replace('Run two commands', '[overloaded] Run two commands');
    await ed.execute('chatls.advance', { uri: ed.doc.uri });
    await ed
      .until(() => {
        if (/retrying in/.test(ed.statusText())) retry = ed.statusText();
        return ed.doc.getText() === want && /waits for approval/.test(ed.statusText());
      }, LONG, 'the answer after the retries')
      .catch(() => {});
    assert.match(retry, /Overloaded; retrying in/);
    assert.equal(ed.doc.getText(), want);
  } finally {
    await ed.close();
  }
});
