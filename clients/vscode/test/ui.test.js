// Real VS Code (code-server 4.100.3 = Code 1.100.3) driven through its UI by
// Debian's chromium with playwright-core (EDITORS.md §3):
//   1. install the packaged .vsix, start code-server, open the workspace;
//   2. the extension's self-test (src/selftest.ts) runs on activation and
//      reports through a JSON file;
//   3. as a user: open ui.chat, see the preview hint and the status bar,
//      Ctrl+. -> choose "Approve bash: ...", see the output written, save;
//   4. the three-turn conversation, a cancel and a 401 (ui-conversation.js);
//   5. chatls.server.path set to a missing file: one message naming it.
// Every step prints PASS/FAIL with its name, so a broken workaround says
// exactly which step failed.
//
// env: CHATLS_BIN, CODE_SERVER (binary), VSIX, SCRATCH (empty dir),
//      CHATLS_SCREENSHOT_DIR (optional: where the PNGs go)
const cp = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { conversation, providerConfig, writeDocuments } = require('./ui-conversation.js');

const env = (k) => {
  if (!process.env[k]) throw new Error(`${k} not set`);
  return process.env[k];
};
const BIN = env('CHATLS_BIN');
const CODE_SERVER = env('CODE_SERVER');
const VSIX = env('VSIX');
const SCRATCH = env('SCRATCH');
const SHOTS = process.env.CHATLS_SCREENSHOT_DIR || SCRATCH;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const FIXTURE = path.join(__dirname, '..', '..', 'testdata', 'approve-echo.chat');

let passed = 0;
let failed = 0;
let page; // once the browser runs: a failed step leaves a screenshot

const t0 = Date.now();
const log = (s) => console.log(s);

async function step(name, fn) {
  const start = Date.now();
  try {
    const r = await fn();
    passed++;
    log(`PASS ${name} (${Date.now() - start} ms)`);
    return r;
  } catch (e) {
    failed++;
    log(`FAIL ${name}: ${(e && e.message) || e}`);
    if (page) await page.screenshot({ path: path.join(SCRATCH, `failed-step-${failed}.png`) }).catch(() => {});
    throw e;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function waitHttp(url, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${ms} ms`);
}

async function waitFile(file, pred, ms) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    try {
      last = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (pred(last)) return last;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out; last report: ${JSON.stringify(last)}`);
}

// Monaco renders spaces as U+00A0; compare on normalized text.
const norm = (s) => s.replace(/\u00a0/g, ' ');

async function main() {
  const dirs = {};
  for (const d of ['ws', 'user-data', 'extensions', 'config', 'state', 'data', 'browser']) {
    dirs[d] = path.join(SCRATCH, d);
    fs.mkdirSync(dirs[d], { recursive: true });
  }
  const fixture = fs.readFileSync(FIXTURE, 'utf8');
  fs.writeFileSync(path.join(dirs.ws, 'selftest.chat'), fixture);
  fs.writeFileSync(path.join(dirs.ws, 'ui.chat'), fixture);
  writeDocuments(dirs.ws);
  // A repository's settings that try to widen the policy: VS Code must not
  // pass them on (they are user-only); placeholderStyle may come from here.
  fs.mkdirSync(path.join(dirs.ws, '.vscode'), { recursive: true });
  fs.writeFileSync(
    path.join(dirs.ws, '.vscode', 'settings.json'),
    JSON.stringify({
      'chatls.tools.autoApprove': ['bash'],
      'chatls.tools.deny': [],
      'chatls.sandbox.enabled': false,
      'chatls.tools.plugins': [{ name: 'evil', path: '/bin/false' }],
      'chatls.placeholderStyle': 'fence',
    }),
  );
  // The server's user config: an offline scripted model (SPEC §7 "script"),
  // so the self-test can send without a key or network; and the entries the
  // conversations of ui-conversation.js choose in their frontmatter.
  fs.mkdirSync(path.join(dirs.config, 'chatls'), { recursive: true });
  const script = path.join(SCRATCH, 'responses.json');
  fs.writeFileSync(script, JSON.stringify({ responses: [{ text: 'Hello from the scripted model.' }] }));
  fs.writeFileSync(path.join(dirs.config, 'chatls', 'config.toml'), `provider = "replay"\n[providers.replay]\ntype = "script"\nfile = "${script}"\n` + providerConfig(SCRATCH));
  const openerLine = fixture.split('\n').findIndex((l) => l.startsWith('```flemma:tool')) + 1;
  const serverLog = path.join(SCRATCH, 'chatls.log');
  fs.mkdirSync(path.join(dirs['user-data'], 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(dirs['user-data'], 'User', 'settings.json'),
    JSON.stringify({
      'chatls.server.path': BIN,
      'chatls.server.args': ['--log-file', serverLog],
      // With the log level at trace (--log trace below), the language client
      // writes each request and how long its answer took to the chatls
      // output channel's log; ui-conversation.js reads the cancel's.
      'chatls.trace.server': 'verbose',
      'chatls.tools.maxConcurrent': 2, // the self-test checks only this and the workspace's placeholderStyle are sent
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'security.workspace.trust.enabled': false,
      'editor.inlayHints.enabled': 'on',
      // code-server saves after a second by default (and then hides the
      // dirty dot): off, so Ctrl+S is what writes the file, and a clean tab
      // means the file holds the editor's text (ui-conversation.js).
      'files.autoSave': 'off',
      'telemetry.telemetryLevel': 'off',
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
    }),
  );
  const childEnv = {
    ...process.env,
    XDG_CONFIG_HOME: dirs.config,
    XDG_STATE_HOME: dirs.state,
    XDG_DATA_HOME: dirs.data,
    CHATLS_SELFTEST_RESULT: path.join(SCRATCH, 'selftest.json'),
    // No CHATLS_APPLY_EDIT_TIMEOUT: on a busy machine VS Code has taken
    // over 4 s to answer an edit, and the server must wait for a client
    // that answers (server/slow_client_test.go) with its defaults.
  };
  const csArgs = ['--user-data-dir', dirs['user-data'], '--extensions-dir', dirs.extensions];

  await step('install the .vsix into code-server', () => {
    const out = cp.execFileSync(CODE_SERVER, [...csArgs, '--install-extension', VSIX], { env: childEnv, encoding: 'utf8', timeout: 60000 });
    if (!/successfully installed/i.test(out)) throw new Error(out);
  });

  const port = await freePort();
  const csLog = fs.openSync(path.join(SCRATCH, 'code-server.log'), 'w');
  const server = cp.spawn(
    CODE_SERVER,
    [...csArgs, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--log', 'trace', dirs.ws],
    { env: childEnv, stdio: ['ignore', csLog, csLog], detached: true },
  );
  let ctx;
  try {
    await step('code-server answers on its port', () => waitHttp(`http://127.0.0.1:${port}/healthz`, 30000));
    ctx = await step('chromium starts (playwright-core, /usr/bin/chromium)', () =>
      chromium.launchPersistentContext(dirs.browser, {
        executablePath: CHROMIUM,
        headless: true,
        viewport: { width: 1280, height: 720 },
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      }),
    );
    page = ctx.pages()[0] || (await ctx.newPage());
    await step('workbench loads', async () => {
      await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.ws)}`, { timeout: 120000 }); // a busy machine loads the workbench slowly
      await page.waitForSelector('.monaco-workbench', { timeout: 120000 });
    });

    // The extension activates on workspaceContains:**/*.chat and runs its self-test.
    const report = await step('extension self-test finishes', () => waitFile(childEnv.CHATLS_SELFTEST_RESULT, (r) => r.done, 180000));
    for (const c of report.checks) {
      if (c.ok) passed++;
      else failed++;
      log(`${c.ok ? 'PASS' : 'FAIL'} self-test: ${c.name}${c.ok ? '' : ': ' + JSON.stringify(c.detail)}`);
    }
    if (report.error) {
      failed++;
      log(`FAIL self-test error: ${report.error}`);
    }

    await step('open ui.chat from the explorer', async () => {
      const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'ui.chat' });
      await row.first().waitFor({ timeout: 30000 });
      await row.first().dblclick();
      await page.waitForFunction(() => document.querySelector('.tab.active')?.textContent?.includes('ui.chat'), null, { timeout: 15000 });
    });
    const editorText = () => page.evaluate(() => [...document.querySelectorAll('.editor-group-container.active .monaco-editor .view-lines')].map((e) => e.innerText).join('\n'));

    await step('inlay hint drawn: "bash: $ echo hello-from-chatls"', async () => {
      await page.waitForFunction(
        () => [...document.querySelectorAll('.monaco-editor .view-lines')].some((e) => /bash:\s\$\secho\shello-from-chatls/.test(e.innerText)),
        null,
        { timeout: 30000, polling: 250 },
      );
    });
    await step('status bar shows the server\'s status: "1 call waits for approval (press Ctrl+Alt+Y (approve))"', async () => {
      await page.locator('.statusbar-item', { hasText: '1 call waits for approval (press Ctrl+Alt+Y (approve))' }).first().waitFor({ timeout: 10000 });
    });
    // Go to the fence opener so the quick-fix lightbulb belongs to the placeholder.
    await page.keyboard.press('Control+g');
    await page.keyboard.type(String(openerLine));
    await page.keyboard.press('Enter');
    await page.waitForTimeout(500);
    if (process.env.CHATLS_SCREENSHOT_DIR) {
      // For the docs: let the self-test's transient "sending to the model" message fade first.
      await page
        .waitForFunction(() => ![...document.querySelectorAll('.statusbar-item')].some((e) => e.textContent.includes('sending to the model')), null, { timeout: 8000 })
        .catch(() => {});
    }
    await page.screenshot({ path: path.join(SHOTS, 'vscode-pending.png') });

    await step('quick fix menu (Ctrl+.) offers "Approve bash: $ echo hello-from-chatls"', async () => {
      await page.keyboard.press('Control+.');
      const rows = page.locator('.action-widget .monaco-list-row');
      await rows.first().waitFor({ timeout: 10000 });
      const texts = (await rows.allInnerTexts()).map(norm);
      if (!texts.some((t) => t.includes('Approve bash: $ echo hello-from-chatls'))) throw new Error(`menu rows: ${JSON.stringify(texts)}`);
      if (!texts.some((t) => t.includes('Reject bash'))) throw new Error(`no Reject in ${JSON.stringify(texts)}`);
      await page.screenshot({ path: path.join(SHOTS, 'vscode-quickfix.png') });
    });
    await step('choose Approve: the output is written into the editor', async () => {
      // Keyboard, as a user would: a pointer-block overlay swallows clicks on the menu.
      for (let n = 0; ; n++) {
        const focused = norm((await page.locator('.action-widget .monaco-list-row.focused').first().getAttribute('aria-label')) ?? '');
        if (focused.startsWith('Approve bash: $ echo hello-from-chatls')) break;
        if (n > 10) throw new Error(`could not focus Approve (focused: ${focused})`);
        await page.keyboard.press('ArrowDown');
      }
      await page.keyboard.press('Enter');
      const end = Date.now() + 20000;
      while (!norm(await editorText()).split('\n').includes('hello-from-chatls')) {
        if (Date.now() > end) throw new Error(`editor text: ${norm(await editorText())}`);
        await page.waitForTimeout(250);
      }
    });
    await step('status bar: ready to send, nothing waits', async () => {
      await page.locator('.statusbar-item', { hasText: 'ready to send (press Ctrl+] (next step))' }).first().waitFor({ timeout: 10000 });
      if (await page.locator('.statusbar-item', { hasText: 'waits' }).count()) throw new Error('a status bar item still says something waits');
    });
    // The server sends workspace/codeLens/refresh; give the editor a moment to drop the old lens.
    await page
      .waitForFunction(() => ![...document.querySelectorAll('.codelens-decoration')].some((e) => e.textContent.includes('Approve')), null, { timeout: 3000 })
      .catch(() => {});
    await page.screenshot({ path: path.join(SHOTS, 'vscode-result.png') });
    await step('Ctrl+S saves the result to disk', async () => {
      await page.keyboard.press('Control+s');
      const file = path.join(dirs.ws, 'ui.chat');
      const end = Date.now() + 10000;
      while (!fs.readFileSync(file, 'utf8').includes('\nhello-from-chatls\n')) {
        if (Date.now() > end) throw new Error(fs.readFileSync(file, 'utf8'));
        await new Promise((r) => setTimeout(r, 200));
      }
    });

    await conversation({ page, step, ws: dirs.ws, logs: path.join(dirs['user-data'], 'logs') });

    // A newcomer without chatls on PATH: one message naming the setting that
    // fixes it, and no other notification (the language client's spawn error,
    // restart notices). The user settings file changes as if edited.
    await step('chatls missing: one message naming chatls.server.path, nothing else', async () => {
      await page.keyboard.press('Escape');
      await page.evaluate(() => document.querySelectorAll('.notifications-toasts .notification-toast .codicon-notifications-clear').forEach((b) => b.click()));
      // As a user would: the Settings editor, the setting's own input box.
      await page.keyboard.press('F1');
      await page.keyboard.type('Preferences: Open User Settings');
      // Not the (JSON) one; a row may also carry a section label ("other
      // commands") once the palette has been used.
      await page.locator('.quick-input-list .monaco-list-row', { hasText: /^Preferences: Open User Settings(?! ?\(JSON\))/ }).first().waitFor({ timeout: 10000 });
      await page.keyboard.press('Enter');
      const search = page.locator('.settings-editor .suggest-input-container textarea, .settings-editor .settings-header input').first();
      await search.waitFor({ timeout: 15000 });
      await search.fill('chatls.server.path');
      // Machine-scoped settings live under the Remote tab in code-server.
      await page.locator('.settings-tabs-widget .action-label', { hasText: /^Remote/ }).first().click();
      const input = page.locator('.setting-item-contents', { hasText: 'Path' }).locator('input').first();
      await input.waitFor({ timeout: 15000 });
      await input.fill('/nonexistent/chatls');
      await input.press('Tab');
      const toasts = page.locator('.notifications-toasts .notification-toast');
      await toasts
        .filter({ hasText: '/nonexistent/chatls' })
        .first()
        .waitFor({ timeout: 20000 })
        .catch(async (e) => {
          const bar = await page.locator('.statusbar-item').allInnerTexts();
          throw new Error(`${e.message.split('\n')[0]}; notifications ${JSON.stringify(await toasts.allInnerTexts())}; status bar ${JSON.stringify(bar)}`);
        });
      // Anything else the client would show comes within moments of the first.
      await page.waitForTimeout(1500);
      const texts = (await toasts.allInnerTexts()).map(norm).filter((t) => /chatls/i.test(t));
      if (texts.length !== 1 || !texts[0].includes('chatls.server.path')) throw new Error(`notifications: ${JSON.stringify(texts)}`);
      await page.screenshot({ path: path.join(SHOTS, 'vscode-missing.png') });
      // Back in the conversation, the status bar says so too.
      await page.locator('.tabs-container .tab', { hasText: 'ui.chat' }).first().click();
      await page.locator('.statusbar-item', { hasText: 'chatls missing' }).first().waitFor({ timeout: 5000 });
    });
  } finally {
    if (ctx) await ctx.close().catch(() => {});
    try {
      process.kill(-server.pid, 'SIGTERM'); // its process group: code-server and its helpers
    } catch {}
  }
}

main()
  .catch((e) => {
    if (!failed) {
      failed++;
      log(`FAIL ${e && e.message}`);
    }
  })
  .finally(() => {
    log(`vscode: ${passed} passed, ${failed} failed (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    if (failed) log(`logs: ${SCRATCH}/code-server.log, ${SCRATCH}/chatls.log, screenshots ${SCRATCH}/failed-step-*.png`);
    process.exit(failed ? 1 : 0);
  });
