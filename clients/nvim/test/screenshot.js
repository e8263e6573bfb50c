// Renders a screenshot of Neovim showing a pending call with its preview, for
// docs/editors.md: Neovim runs in a detached tmux session with the plugin,
// tmux capture-pane -e gives the screen with its colours as ANSI, which is
// turned into HTML and photographed by chromium (playwright-core).
//
//   node clients/nvim/test/screenshot.js /path/to/chatls docs/img/nvim-pending.png
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createRequire } = require('node:module');

const [bin, out] = process.argv.slice(2);
if (!bin || !out) {
  console.error('usage: screenshot.js CHATLS_BIN OUT.png');
  process.exit(2);
}
const clients = path.resolve(__dirname, '..', '..');
const { chromium } = createRequire(path.join(clients, 'vscode', 'package.json'))('playwright-core');

const COLS = 96;
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

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chatls-shot-'));
  const ws = path.join(tmp, 'ws');
  fs.mkdirSync(ws);
  fs.copyFileSync(path.join(clients, 'testdata', 'approve-echo.chat'), path.join(ws, 'approve-echo.chat'));
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
  const session = `chatls-shot-${process.pid}`;
  tmux('new-session', '-d', '-s', session, '-x', String(COLS), '-y', String(ROWS),
    `cd ${ws} && XDG_CONFIG_HOME=${tmp}/config XDG_STATE_HOME=${tmp}/state TERM=xterm-256color nvim -u ${init} -i NONE -n approve-echo.chat`);
  let screen;
  try {
    // Put the cursor on the placeholder and let the hint and diagnostics arrive.
    await sleep(1500);
    tmux('send-keys', '-t', session, '20G');
    await sleep(1500);
    screen = tmux('capture-pane', '-e', '-p', '-t', session);
  } finally {
    try {
      tmux('kill-session', '-t', session);
    } catch {}
  }
  if (!/echo hello-from-chatls/.test(screen.replace(/\x1b\[[0-9;:]*m/g, ''))) {
    throw new Error('no preview on screen:\n' + screen);
  }
  const html = `<!doctype html><meta charset="utf-8"><body style="margin:0;background:#1c1c1c">
<pre id="t" style="margin:0;padding:10px;font:15px/1.3 'DejaVu Sans Mono',monospace;color:#d0d0d0;background:#1c1c1c;display:inline-block">${ansiToHtml(screen)}</pre>`;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ deviceScaleFactor: 1 });
    await page.setContent(html);
    await page.locator('#t').screenshot({ path: out });
  } finally {
    await browser.close();
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  console.log('wrote', out);
}

main().catch((e) => {
  console.error(e.message || e);
  process.exit(1);
});
