// The three-turn conversation of clients/testdata/three-turn/ held in the real
// code-server UI (run by ui.test.js), as the Neovim, Vim and Emacs tests hold
// it: the question sent with Ctrl+] (next step), the first call approved with
// Ctrl+Alt+Y, the second rejected with Ctrl+Alt+] then Ctrl+Alt+N, the whole
// document compared with the expected file after each turn. While an answer
// streams nothing is typed: the test only watches the status bar. Then a
// slow answer cancelled from the palette (answered within 200 ms, the abort
// marker once) and a 401 that leaves the document as it was.
//
// The answers come from the product's `script` provider: the documents pick
// their entry with a Lua frontmatter (providerConfig writes the entries).
const fs = require('node:fs');
const path = require('node:path');

const EXPECT = path.join(__dirname, '..', '..', 'testdata', 'three-turn');
const expected = (name) => fs.readFileSync(path.join(EXPECT, name), 'utf8');
const LONG = 60000; // generous: a busy machine
const MARKER = '<!-- flemma:aborted: Response interrupted by the user. -->';
const frontmatter = (provider) => '```lua\nflemma.opt.provider = "' + provider + '"\n```\n';
const THREE = frontmatter('three');
const SLOW = frontmatter('slow') + '@You:\nCount for me.\n';
const REFUSED = frontmatter('refused') + '@You:\nHello?\n';
const norm = (s) => s.replace(/\u00a0/g, ' '); // Monaco draws spaces as U+00A0

// providerConfig writes the scripts of the slow and the refused answer into
// scratch and returns the config.toml entries of the three providers.
function providerConfig(scratch) {
  const slow = path.join(scratch, 'slow.json');
  const words = Array.from({ length: 400 }, (_, i) => `word${i + 1}`).join(' ');
  fs.writeFileSync(slow, JSON.stringify({ responses: [{ text: words, delayMs: 250 }] }));
  const refused = path.join(scratch, 'refused.json');
  fs.writeFileSync(refused, JSON.stringify({ responses: [{ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } }] }));
  return `
[providers.three]
type = "script"
file = ${JSON.stringify(path.join(EXPECT, 'responses.json'))}
model = "scripted"
[providers.three.models.scripted]
price = { input = 3, output = 15 }
[providers.slow]
type = "script"
file = ${JSON.stringify(slow)}
[providers.refused]
type = "script"
file = ${JSON.stringify(refused)}
`;
}

// writeDocuments puts the conversations' documents into the workspace.
function writeDocuments(ws) {
  fs.writeFileSync(path.join(ws, 'three.chat'), THREE + expected('start.chat'));
  fs.writeFileSync(path.join(ws, 'slow.chat'), SLOW);
  fs.writeFileSync(path.join(ws, 'refused.chat'), REFUSED);
}

// show makes a text readable in a failure message: line ends visible.
const show = (s) => '\n' + s.replace(/\n/g, '⏎\n');

// cancelAnswered reads from the chatls output channel's log (the language
// client's trace) how many milliseconds chatls.cancel took to be answered;
// the log is written a little after the fact.
async function cancelAnswered(logs) {
  const end = Date.now() + LONG;
  for (;;) {
    const files = [];
    const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).forEach((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : files.push(path.join(d, e.name))));
    walk(logs);
    const log = files.filter((f) => /chatls\.chatls[\\/]chatls\.log$/.test(f)).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    const sent = [...log.matchAll(/Sending request 'workspace\/executeCommand - \((\d+)\)'\.\s*Params: \{\s*"command": "chatls\.cancel"/g)];
    if (sent.length > 1) throw new Error(`${sent.length} chatls.cancel requests in the client's trace`);
    const answered = sent.length && new RegExp(`Received response 'workspace/executeCommand - \\(${sent[0][1]}\\)' in (\\d+)ms`).exec(log);
    if (answered) return Number(answered[1]);
    if (Date.now() > end) throw new Error(sent.length ? `no answer to chatls.cancel (request ${sent[0][1]}) in the client's trace` : "no chatls.cancel in the client's trace (is the log level trace?)");
    await new Promise((r) => setTimeout(r, 200));
  }
}

// conversation runs the steps on page (step as in ui.test.js); ws is the
// workspace folder, logs code-server's log directory (the client's trace).
async function conversation({ page, step, ws, logs }) {
  const statusBar = (text) => page.locator('.statusbar-item', { hasText: text }).first();
  const activeTab = page.locator('.tabs-container .tab.active').first();

  // documentText is the editor's whole text. Monaco renders only the lines in
  // view and draws spaces as U+00A0, so the DOM is not the text; the saved
  // file is, byte for byte, and saving is what a user does. A clean tab
  // means the file already holds the text; else Ctrl+S, and the file counts
  // once it has been written (its mtime moved) and the tab is clean again.
  async function documentText(name) {
    const file = path.join(ws, name);
    const before = fs.statSync(file, { bigint: true }).mtimeNs;
    if (/\bdirty\b/.test((await activeTab.getAttribute('class')) ?? '')) {
      await page.keyboard.press('Control+s');
      const end = Date.now() + LONG;
      while (fs.statSync(file, { bigint: true }).mtimeNs === before || /\bdirty\b/.test((await activeTab.getAttribute('class')) ?? '')) {
        if (Date.now() > end) throw new Error(`${name} was not saved within ${LONG} ms`);
        await page.waitForTimeout(50);
      }
    }
    return fs.readFileSync(file, 'utf8');
  }

  async function open(name) {
    const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: name });
    await row.first().waitFor({ timeout: 30000 });
    await row.first().dblclick();
    // Keys go to this editor once it has the focus, and the server knows the
    // document once the breadcrumbs show its outline (documentSymbol).
    await page.waitForFunction(
      (n) =>
        document.querySelector('.tab.active')?.textContent?.includes(n) &&
        document.activeElement?.closest('.editor-group-container.active .monaco-editor') &&
        /frontmatter/.test(document.querySelector('.editor-group-container.active .breadcrumbs-control')?.textContent ?? '') &&
        document.querySelector('.editor-group-container.active .breadcrumbs-control')?.textContent?.includes(n),
      name,
      { timeout: LONG },
    );
    await statusBar('chatls: ready to send').waitFor({ timeout: LONG });
  }

  // send presses Ctrl+] (next step) and sees the command say it sent.
  async function send() {
    await page.keyboard.press('Control+]');
    await statusBar('chatls: sending to the model').waitFor({ timeout: LONG });
  }

  // turn waits, typing nothing, for the status that ends the turn, then
  // compares the whole document with the expected file.
  async function turn(name, want, status) {
    await statusBar(status)
      .waitFor({ timeout: LONG })
      .catch(async (e) => {
        const bar = norm((await page.locator('.statusbar').innerText()).replace(/\s+/g, ' '));
        throw new Error(`${e.message.split('\n')[0]}; status bar: ${bar}`);
      });
    const got = await documentText(name);
    if (got !== want) throw new Error(`the document differs from the expected file:${show(got)}\n--- want:${show(want)}`);
  }

  await step('three turns: open three.chat, Ctrl+] sends the question', async () => {
    await open('three.chat');
    await send();
  });
  // Each turn's status names its answer's usage (responses.json), so an
  // earlier turn's "waits for approval" is never taken for this one's.
  await step('turn 1: the answer and its pending call, each once (nothing typed while it streams)', () =>
    turn('three.chat', THREE + expected('after-1.chat'), /waits for approval.*— last answer: scripted · 1\.2k in/),
  );
  await step('turn 2: Ctrl+Alt+Y on line 1 approves the nearest call (the status bar names it)', async () => {
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Control+Alt+y');
    const line = 14 + THREE.split('\n').length - 1;
    await statusBar(`chatls: approving bash toolu_01 (line ${line})`).waitFor({ timeout: LONG });
  });
  await step('turn 2: the result, sent again, the second answer and its call', () =>
    turn('three.chat', THREE + expected('after-2.chat'), /waits for approval.*— last answer: scripted · 1\.3k in/),
  );
  await step('turn 3: Ctrl+Alt+] goes to the pending call, Ctrl+Alt+N rejects it', async () => {
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Control+Alt+]');
    const want = THREE.split('\n').length - 1 + expected('after-2.chat').split('\n').indexOf('```flemma:tool status=pending') + 1;
    await page.locator('.statusbar-item', { hasText: new RegExp(`^Ln ${want}, Col 1$`) }).first().waitFor({ timeout: 10000 });
    await page.keyboard.press('Control+Alt+n');
  });
  await step('turn 3: the rejection, sent again, the final answer and the empty @You:', () =>
    turn('three.chat', THREE + expected('after-3.chat'), /write your question under the last @You:.*— last answer: scripted · 22\.4k in/),
  );

  await step('cancel: the slow answer streams in', async () => {
    await open('slow.chat');
    await send();
    await page.waitForFunction(
      () => [...document.querySelectorAll('.editor-group-container.active .monaco-editor .view-lines')].some((e) => /word3\s/.test(e.innerText)),
      null,
      { timeout: LONG, polling: 100 },
    );
  });
  await step('cancel from the palette: answered within 200 ms', async () => {
    await page.keyboard.press('F1');
    // At once, not key by key: each key filters the palette again, which
    // on a busy machine holds up the edits of the answer streaming in.
    await page.keyboard.insertText('chatls: Cancel the tool call under the cursor');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'or the answer being written' }).first().waitFor({ timeout: 10000 });
    await page.keyboard.press('Enter');
    await statusBar('chatls: stopped the answer').waitFor({ timeout: LONG });
    // Timed by the language client in the extension host, as the other
    // editors time it: from sending chatls.cancel to its answer. A time
    // taken in the page would add the browser's round trips to code-server,
    // which on a busy machine alone take longer than that.
    const ms = await cancelAnswered(logs);
    if (!(ms < 200)) throw new Error(`chatls.cancel was answered after ${ms} ms`);
    console.log(`  (chatls.cancel answered after ${ms} ms)`);
  });
  await step('cancel: what arrived, once and in order, then the abort marker once and @You:', async () => {
    await statusBar(/write your question under the last @You:/).waitFor({ timeout: LONG });
    const got = await documentText('slow.chat');
    const m = new RegExp(`^${esc(SLOW)}\\n@Assistant:\\n([\\s\\S]*?)\\n+${esc(MARKER)}\\n\\n@You:\\n\\n$`).exec(got);
    if (!m) throw new Error(`not the answer's start, the abort marker and @You::${show(got)}`);
    const words = m[1].trim().split(' ');
    if (words.length < 3 || words.some((w, i) => w !== `word${i + 1}`)) throw new Error(`the words that arrived:${show(got)}`);
    if (got.split(MARKER).length !== 2) throw new Error(`the abort marker more than once:${show(got)}`);
  });

  await step('401: the error is shown, the document is as it was', async () => {
    await open('refused.chat');
    await page.keyboard.press('Control+]');
    await page.locator('.notifications-toasts .notification-toast', { hasText: '401' }).first().waitFor({ timeout: LONG });
    const got = await documentText('refused.chat');
    if (got !== REFUSED) throw new Error(`the document changed:${show(got)}`);
  });
}

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

module.exports = { conversation, providerConfig, writeDocuments };
