// Pictures of the approval cycle in the terminal editors, for the READMEs
// and docs/editors.md. Each editor runs with its chatls client in a detached
// tmux session on a copy of clients/testdata/approve-echo.chat; the script
// waits for what each picture must show (the pending call, then the result),
// `tmux capture-pane -e` gives the screen with its colours as ANSI, which is
// turned into HTML and photographed by chromium (playwright-core).
//
//   node clients/screenshots/terminal.js CHATLS_BIN OUT_DIR [nvim|vim|emacs ...]
//
// writes OUT_DIR/EDITOR-pending.png and OUT_DIR/EDITOR-result.png (the
// approval), OUT_DIR/EDITOR-streamed.png (an answer streamed in from the
// `script` provider, its call waiting) and OUT_DIR/EDITOR-retry.png (the
// status line while an overloaded provider is retried: the local Anthropic
// stand-in clients/testdata/anthropic-server.js answers 529 twice). A picture
// whose screen never shows what it must is an error, not a picture. For
// Neovim also OUT_DIR/nvim-rewind-hover.png: the hover of a call that changed
// an open and a closed file, listing what a rewind changes (SPEC §10).
// Without playwright-core (clients/vscode's npm install) the page is taken
// by chromium's own --screenshot instead.
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createRequire } = require('node:module');

const [bin, outDir, ...only] = process.argv.slice(2);
if (!bin || !outDir) {
  console.error('usage: terminal.js CHATLS_BIN OUT_DIR [nvim|vim|emacs ...]');
  process.exit(2);
}
const clients = path.resolve(__dirname, '..');
let chromium = null;
try {
  ({ chromium } = createRequire(path.join(clients, 'vscode', 'package.json'))('playwright-core'));
} catch {
  // not installed: shoot() falls back to chromium --headless --screenshot
}

const COLS = 110;
const ROWS = 26;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tmux = (...args) => cp.execFileSync('tmux', args, { encoding: 'utf8' });

// xterm's 256-colour palette.
function palette(n) {
  const base = ['#000000', '#cd0000', '#00cd00', '#cdcd00', '#0000ee', '#cd00cd', '#00cdcd', '#e5e5e5',
    '#7f7f7f', '#ff0000', '#00ff00', '#ffff00', '#5c5cff', '#ff00ff', '#00ffff', '#ffffff'];
  if (n < 16) return base[n];
  if (n < 232) {
    const v = [0, 95, 135, 175, 215, 255];
    const i = n - 16;
    return `rgb(${v[Math.floor(i / 36)]},${v[Math.floor(i / 6) % 6]},${v[i % 6]})`;
  }
  const g = 8 + (n - 232) * 10;
  return `rgb(${g},${g},${g})`;
}

// ansiToHtml handles the SGR codes tmux emits: reset, bold, italic,
// underline, reverse, 8/16/256/RGB colours.
function ansiToHtml(text) {
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  let st = {};
  let html = '';
  const span = (s) => {
    if (!s) return;
    let fg = st.fg || '#d0d0d0';
    let bg = st.bg || 'transparent';
    if (st.reverse) [fg, bg] = [st.bg || '#1c1c1c', st.fg || '#d0d0d0'];
    const css = [`color:${fg}`, `background:${bg}`];
    if (st.bold) css.push('font-weight:bold');
    if (st.italic) css.push('font-style:italic');
    if (st.underline) css.push('text-decoration:underline');
    html += `<span style="${css.join(';')}">${esc(s)}</span>`;
  };
  const parts = text.split(/\x1b\[([0-9;:]*)m/);
  for (let i = 0; i < parts.length; i++) {
    if (i % 2 === 0) {
      span(parts[i]);
      continue;
    }
    const codes = parts[i].split(/[;:]/).map(Number);
    for (let j = 0; j < codes.length; j++) {
      const c = codes[j];
      if (c === 0 || Number.isNaN(c)) st = {};
      else if (c === 1) st.bold = true;
      else if (c === 3) st.italic = true;
      else if (c === 4) st.underline = true;
      else if (c === 7) st.reverse = true;
      else if (c === 22) st.bold = false;
      else if (c === 23) st.italic = false;
      else if (c === 24) st.underline = false;
      else if (c === 27) st.reverse = false;
      else if (c >= 30 && c <= 37) st.fg = palette(c - 30);
      else if (c >= 90 && c <= 97) st.fg = palette(c - 90 + 8);
      else if (c >= 40 && c <= 47) st.bg = palette(c - 40);
      else if (c >= 100 && c <= 107) st.bg = palette(c - 100 + 8);
      else if (c === 39) delete st.fg;
      else if (c === 49) delete st.bg;
      else if (c === 38 || c === 48) {
        const key = c === 38 ? 'fg' : 'bg';
        if (codes[j + 1] === 5) {
          st[key] = palette(codes[j + 2]);
          j += 2;
        } else if (codes[j + 1] === 2) {
          st[key] = `rgb(${codes[j + 2]},${codes[j + 3]},${codes[j + 4]})`;
          j += 4;
        }
      }
    }
  }
  return html;
}

const plain = (screen) => screen.replace(/\x1b\[[0-9;:]*m/g, '');

// The editors: how each starts on FILE, and the keys that approve the call
// with the cursor on its placeholder (line 20 of the fixture).
const editors = {
  nvim: (tmp, file) => {
    const init = path.join(tmp, 'init.lua');
    fs.writeFileSync(
      init,
      `vim.opt.runtimepath:prepend(${JSON.stringify(path.join(clients, 'nvim'))})
vim.cmd('filetype plugin on | syntax on | set background=dark')
vim.o.laststatus = 2
vim.o.number = true
vim.o.signcolumn = 'no'
vim.o.statusline = " %f %= %{v:lua.require'chatls'.statusline()} "
require('chatls').setup({ cmd = { ${JSON.stringify(bin)} } })
`,
    );
    return { command: `nvim -u ${init} -i NONE -n ${file}`, goto: ['20G'], approve: ['\\y'], advance: ['C-]'] };
  },
  vim: (tmp, file) => {
    const vimrc = path.join(tmp, 'vimrc');
    fs.writeFileSync(
      vimrc,
      `set nocompatible background=dark number laststatus=2
let &runtimepath = '/usr/share/vim-ale,' . &runtimepath
filetype plugin on
syntax on
let g:chatls_executable = ${JSON.stringify(bin)}
source ${path.join(clients, 'vim', 'chatls.vim')}
set statusline=\\ %f\\ %=%{ChatlsStatus()}\\ 
`,
    );
    return { command: `vim -u ${vimrc} -i NONE -n ${file}`, goto: ['20G'], approve: ['\\y'], advance: ['C-]'] };
  },
  emacs: (tmp, file) => {
    const init = path.join(tmp, 'init.el');
    fs.writeFileSync(
      init,
      `(setq native-comp-async-report-warnings-errors 'silent)
(require 'package)
(package-initialize)
(load ${JSON.stringify(path.join(clients, 'emacs', 'chatls.el'))} nil t)
(setq chatls-program '(${JSON.stringify(bin)}) inhibit-startup-screen t)
(add-hook 'chatls-mode-hook #'chatls-eglot-ensure)
(global-display-line-numbers-mode 1)
`,
    );
    return { command: `emacs -nw -q -l ${init} ${file}`, goto: ['M-g', 'g', '20', 'Enter'], approve: ['C-c', 'C-a'], advance: ['C-c', 'C-c'] };
  },
};

// until polls the pane until its text matches re (what the picture shows).
async function until(session, re, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const screen = tmux('capture-pane', '-e', '-p', '-t', session);
    if (re.test(plain(screen))) return screen;
    if (Date.now() > end) throw new Error(`${session}: no ${re} on screen:\n${plain(screen)}`);
    await sleep(100);
  }
}

async function shoot(browser, screen, out) {
  const html = `<!doctype html><meta charset="utf-8"><body style="margin:0;background:#1c1c1c">
<pre id="t" style="margin:0;padding:10px;font:15px/1.3 'DejaVu Sans Mono',monospace;color:#d0d0d0;background:#1c1c1c;display:inline-block">${ansiToHtml(screen)}</pre>`;
  if (!browser) {
    // chromium's CLI takes the whole window: size it to the terminal
    // (DejaVu Sans Mono at 15px is 9 px a column, 19.5 px a row).
    const file = path.join(os.tmpdir(), `chatls-shot-${process.pid}.html`);
    fs.writeFileSync(file, html);
    try {
      cp.execFileSync(process.env.CHROMIUM || '/usr/bin/chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
        `--window-size=${COLS * 9 + 20},${Math.ceil(ROWS * 19.5) + 20}`, `--screenshot=${out}`, `file://${file}`], { stdio: 'ignore', timeout: 60000 });
    } finally {
      fs.rmSync(file, { force: true });
    }
    console.log('wrote', out);
    return;
  }
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  await page.setContent(html);
  await page.locator('#t').screenshot({ path: out });
  await page.close();
  console.log('wrote', out);
}

async function picture(browser, name) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `chatls-shot-${name}-`));
  const ws = path.join(tmp, 'ws');
  fs.mkdirSync(ws);
  fs.copyFileSync(path.join(clients, 'testdata', 'approve-echo.chat'), path.join(ws, 'approve-echo.chat'));
  const ed = editors[name](tmp, 'approve-echo.chat');
  const session = `chatls-shot-${name}-${process.pid}`;
  tmux('new-session', '-d', '-s', session, '-x', String(COLS), '-y', String(ROWS),
    `cd ${ws} && exec env HOME=${tmp} XDG_CONFIG_HOME=${tmp}/config XDG_STATE_HOME=${tmp}/state TERM=xterm-256color ${ed.command}`);
  try {
    // The pending call: its status (with the key that approves it) on screen.
    await until(session, /waits for approval/, 20000);
    tmux('send-keys', '-t', session, ...ed.goto);
    const pending = await until(session, /waits for approval/, 5000);
    await shoot(browser, pending, path.join(outDir, `${name}-pending.png`));
    tmux('send-keys', '-t', session, ...ed.approve);
    const result = await until(session, /^\s*\d*\s*hello-from-chatls\s*$/m, 20000).then(() => until(session, /ready to send/, 10000));
    await shoot(browser, result, path.join(outDir, `${name}-result.png`));
  } finally {
    let editor = 0;
    try {
      editor = Number(tmux('display-message', '-p', '-t', session, '#{pane_pid}').trim());
      tmux('kill-session', '-t', session);
    } catch {}
    // The editor (the pane's process: started with exec) exits after the
    // session is gone, and may still write into the workspace on the way
    // out (Emacs auto-saves a modified buffer on SIGHUP): removing it before
    // then fails with ENOTEMPTY. Its language server may write its state a
    // moment later still, hence the retries.
    await gone(editor, 5000);
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
  }
}

// session runs editor name on file (text) in a workspace of its own whose
// user config has the providers of clients/testdata/conversation-env.sh,
// calls shots(session, keys) and cleans up.
async function session(name, file, text, shots) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `chatls-shot-${name}-`));
  const ws = path.join(tmp, 'ws');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, file), text);
  const expect = path.join(clients, 'testdata', 'three-turn');
  fs.mkdirSync(path.join(tmp, 'config', 'chatls'), { recursive: true });
  const portFile = path.join(tmp, 'api.port');
  const api = cp.spawn(process.execPath, [path.join(clients, 'testdata', 'anthropic-server.js'), path.join(expect, 'responses.json'), portFile], { stdio: 'ignore' });
  const ed = editors[name](tmp, file);
  const id = `chatls-shot-${name}-${process.pid}`;
  let editor = 0;
  try {
    const end = Date.now() + 20000;
    while (!(fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8'))) {
      if (Date.now() > end) throw new Error('the local provider API did not start');
      await sleep(50);
    }
    fs.writeFileSync(path.join(tmp, 'config', 'chatls', 'config.toml'), `provider = "replay"
model = "claude-sonnet-4-5"
[providers.replay]
type = "script"
file = ${JSON.stringify(path.join(expect, 'responses.json'))}
[providers.wire]
type = "anthropic"
baseURL = "http://127.0.0.1:${fs.readFileSync(portFile, 'utf8')}/"
apiKeyEnv = "FAKE_API_KEY"
model = "claude-sonnet-4-5"
`);
    tmux('new-session', '-d', '-s', id, '-x', String(COLS), '-y', String(ROWS),
      `cd ${ws} && exec env HOME=${tmp} XDG_CONFIG_HOME=${tmp}/config XDG_STATE_HOME=${tmp}/state FAKE_API_KEY=local TERM=xterm-256color ${ed.command}`);
    await shots(id, ed);
  } finally {
    try {
      editor = Number(tmux('display-message', '-p', '-t', id, '#{pane_pid}').trim());
      tmux('kill-session', '-t', id);
    } catch {}
    api.kill();
    await gone(editor, 5000);
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
  }
}

// streamed: the question sent with the editor's next-step key, the
// scripted answer streamed in, its bash call waiting for approval.
function streamed(browser, name) {
  return session(name, 'question.chat', fs.readFileSync(path.join(clients, 'testdata', 'three-turn', 'start.chat'), 'utf8'), async (id, ed) => {
    // The keys exist once the server is attached: its first status is on screen.
    await until(id, /ready to send|next step/, 30000);
    tmux('send-keys', '-t', id, ...(name === 'emacs' ? ['M->'] : ['G']));
    tmux('send-keys', '-t', id, ...ed.advance);
    const screen = await until(id, /I'll run the first command\.[\s\S]*status=pending[\s\S]*waits for approval/, 60000);
    await shoot(browser, screen, path.join(outDir, `${name}-streamed.png`));
  });
}

// retry: the status line while the overloaded provider is retried.
function retry(browser, name) {
  const text = '```lua\nflemma.opt.provider = "wire"\n```\n@You:\n[overloaded] Run two commands for me.\n';
  return session(name, 'busy.chat', text, async (id, ed) => {
    await until(id, /ready to send|next step/, 30000);
    tmux('send-keys', '-t', id, ...ed.advance);
    const screen = await until(id, /Overloaded; retrying in/, 60000);
    await shoot(browser, screen, path.join(outDir, `${name}-retry.png`));
  });
}

// rewindHover: f.txt open in a buffer and g.txt closed, a bash call
// approved and run changes both and makes h.txt; the hover of the call
// lists what "Rewind files to before this call" changes, file by file.
async function rewindHover(browser, name) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `chatls-shot-${name}-`));
  const ws = path.join(tmp, 'ws');
  fs.mkdirSync(ws);
  const doc = fs.readFileSync(path.join(clients, 'testdata', 'rewind.chat'), 'utf8').replace("> g.txt", "> g.txt; echo new > h.txt");
  fs.writeFileSync(path.join(ws, 'rewind.chat'), doc);
  fs.writeFileSync(path.join(ws, 'f.txt'), 'v0\n');
  fs.writeFileSync(path.join(ws, 'g.txt'), 'g0\n');
  fs.mkdirSync(path.join(tmp, 'config', 'chatls'), { recursive: true });
  // The call runs when the user says so; no sandbox, so that what it
  // touches does not depend on bubblewrap.
  fs.writeFileSync(path.join(tmp, 'config', 'chatls', 'config.toml'), 'autopilot = false\n[sandbox]\nenabled = false\n');
  const ed = editors[name](tmp, 'f.txt');
  const id = `chatls-shot-${name}-rw-${process.pid}`;
  let editor = 0;
  tmux('new-session', '-d', '-s', id, '-x', String(COLS), '-y', String(ROWS),
    `cd ${ws} && exec env HOME=${tmp} XDG_CONFIG_HOME=${tmp}/config XDG_STATE_HOME=${tmp}/state TERM=xterm-256color ${ed.command}`);
  try {
    await until(id, /v0/, 20000);
    tmux('send-keys', '-t', id, ':edit rewind.chat', 'Enter');
    await until(id, /waits for approval/, 30000);
    tmux('send-keys', '-t', id, '/Tool Use', 'Enter');
    tmux('send-keys', '-t', id, ...ed.approve);
    await until(id, /status=approved/, 20000);
    tmux('send-keys', '-t', id, 'M-Enter');
    await until(id, /ready to send/, 30000);
    tmux('send-keys', '-t', id, ':set autoread | checktime | nohlsearch', 'Enter', 'gg', '/Tool Use', 'Enter', ':lua vim.lsp.buf.hover()', 'Enter');
    const screen = await until(id, /Rewind files to before this call[\s\S]*restored .?f\.txt.? \(in the editor\)[\s\S]*removed .?h\.txt/, 20000);
    await shoot(browser, screen, path.join(outDir, `${name}-rewind-hover.png`));
  } finally {
    try {
      editor = Number(tmux('display-message', '-p', '-t', id, '#{pane_pid}').trim());
      tmux('kill-session', '-t', id);
    } catch {}
    await gone(editor, 5000);
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
  }
}

// gone waits until process pid has exited (0: nothing to wait for).
async function gone(pid, ms) {
  const end = Date.now() + ms;
  while (pid > 0 && Date.now() < end) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await sleep(20);
  }
}

async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  const browser = chromium && (await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] }));
  try {
    for (const name of only.length ? only : Object.keys(editors)) {
      if (name === 'nvim-rewind') {
        await rewindHover(browser, 'nvim'); // only this picture
        continue;
      }
      if (!editors[name]) throw new Error(`unknown editor ${name} (nvim, vim, emacs)`);
      if (name === 'nvim') await rewindHover(browser, name);
      await picture(browser, name);
      await streamed(browser, name);
      await retry(browser, name);
    }
  } finally {
    if (browser) await browser.close();
  }
}

main().catch((e) => {
  console.error(e.message || e);
  process.exit(1);
});
