-- Headless Neovim: whole conversations with the real server, as a user holds
-- them (run by clients/nvim/test/run.sh after test.lua).
--
-- Three turns against the `script` provider and again against a local
-- server speaking the Anthropic Messages wire format
-- (clients/testdata/anthropic-server.js): question → answer with a bash call
-- → approve by key with the cursor elsewhere (the nearest pending call) →
-- result → sent again → answer with a second call → ]p to it, reject by key →
-- final answer. After each turn the whole buffer must equal the expected
-- text in clients/testdata/three-turn/ (every answer once, markers once,
-- nothing stray). Then: cancel mid-answer (reply within 200 ms, the abort
-- marker), a 401 (the buffer as it was), retries (the status says so).
-- Nothing is typed while an answer streams: each wait only watches.
local BIN = assert(os.getenv('CHATLS_BIN'), 'CHATLS_BIN')
local WS = assert(os.getenv('CHATLS_WS'), 'CHATLS_WS')
local PLUGIN = assert(os.getenv('CHATLS_PLUGIN'), 'CHATLS_PLUGIN')
local EXPECT = assert(os.getenv('CHATLS_EXPECT'), 'CHATLS_EXPECT') -- clients/testdata/three-turn
local LOG = os.getenv('CHATLS_LOG') or (WS .. '/../chatls.log')
-- Generous: a busy 2-core machine shared with other builds.
local LONG = 60000

local passed, failed = 0, 0
local function out(s)
  io.stdout:write(s .. '\n')
end
local function check(name, ok, detail)
  if ok then
    passed = passed + 1
    out('PASS ' .. name)
  else
    failed = failed + 1
    out('FAIL ' .. name .. (detail and (': ' .. tostring(detail)) or ''))
  end
  return ok
end
local function finish()
  out(('nvim conversation: %d passed, %d failed'):format(passed, failed))
  vim.cmd(failed == 0 and 'qa!' or 'cq!')
end

vim.opt.runtimepath:prepend(PLUGIN)
vim.cmd('filetype plugin on')
vim.g.maplocalleader = '\\'

local notes = {}
vim.notify = function(msg, level)
  notes[#notes + 1] = { msg = msg, level = level, at = vim.loop.hrtime() }
  out('  notify: ' .. msg)
end

local chatls = require('chatls')
chatls.setup({ cmd = { BIN, '--log-file', LOG } })

local function read(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

local function press(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'x', false)
end

-- text is the buffer as the file would be written (lines joined, final newline).
local function text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
end

-- show makes a failure's buffer readable in one line of output.
local function show(s)
  return '\n' .. s:gsub('\n', '⏎\n')
end

local function open(name, content)
  local path = WS .. '/' .. name
  local f = assert(io.open(path, 'wb'))
  f:write(content)
  f:close()
  vim.cmd('edit ' .. path)
  local buf = vim.api.nvim_get_current_buf()
  local ok = vim.wait(LONG, function()
    local c = require('chatls.lsp').client(buf)
    return c ~= nil and c.initialized and chatls.statusline(buf) ~= 'chatls: starting'
  end, 20)
  check(name .. ': server attached, status pushed', ok, chatls.statusline(buf))
  return buf
end

-- settle waits (watching only) until the buffer is want and the status
-- matches status_pattern; returns whether it got there.
local function settle(buf, want, status_pattern)
  return vim.wait(LONG, function()
    return text(buf) == want and chatls.statusline(buf):find(status_pattern) ~= nil
  end, 50)
end

local function notes_since(n)
  local said = {}
  for i = n + 1, #notes do
    said[#said + 1] = notes[i].msg
  end
  return said
end

-- conversation holds the three turns in a new document whose text begins
-- with prefix (a frontmatter choosing the provider, or nothing).
local function conversation(label, name, prefix)
  local buf = open(name, prefix .. read(EXPECT .. '/start.chat'))
  local turn1 = prefix .. read(EXPECT .. '/after-1.chat')
  local turn2 = prefix .. read(EXPECT .. '/after-2.chat')
  local turn3 = prefix .. read(EXPECT .. '/after-3.chat')

  -- Turn 1: <C-]> sends; the answer streams in with no key pressed.
  vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buf), 0 })
  press('<C-]>')
  local ok = settle(buf, turn1, 'waits for approval')
  check(label .. ': turn 1 — the answer and its pending call, each once', ok, show(text(buf)))
  if not ok then
    return buf
  end

  -- Approve from the first line (not in a call): the nearest pending call.
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  local n = #notes
  press('<LocalLeader>y')
  check(label .. ': \\y outside a call says which call it approves',
    vim.tbl_contains(notes_since(n), ('chatls: approving bash toolu_01 (line %d)'):format(14 + select(2, prefix:gsub('\n', '')))),
    table.concat(notes_since(n), ' | '))
  ok = settle(buf, turn2, 'waits for approval')
  check(label .. ': turn 2 — the result, sent again, the second answer and call', ok, show(text(buf)))
  if not ok then
    return buf
  end

  -- ]p goes to the pending call; \n there rejects it.
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  press(']p')
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local line = vim.api.nvim_buf_get_lines(buf, row - 1, row, false)[1]
  check(label .. ': ]p moves to the pending call', line == '```flemma:tool status=pending' and row > 20, row .. ': ' .. line)
  n = #notes
  press('<LocalLeader>n')
  check(label .. ': \\n in the call says nothing about another call', #vim.tbl_filter(function(m)
    return m:find('rejecting', 1, true) ~= nil
  end, notes_since(n)) == 0, table.concat(notes_since(n), ' | '))
  ok = settle(buf, turn3, 'write your question under the last @You:')
  check(label .. ': turn 3 — the rejection, sent again, the final answer', ok, show(text(buf)))
  return buf
end

local function main()
-- 1. The script provider.
local buf = conversation('script', 'three-turn.chat', '')
-- The last answer's usage, in the pushed status the statusline shows.
local usage_ok = vim.wait(10000, function()
  local s = chatls.statusline(buf)
  return s:find('last answer: scripted · 22.4k in (10.1k cached) · 850 out · $', 1, true) ~= nil
end, 50)
check('script: the statusline shows the last answer\'s usage', usage_ok, chatls.statusline(buf))

-- 2. The Anthropic wire format, from a local server.
local wire = '```lua\nflemma.opt.provider = "wire"\n```\n'
conversation('anthropic wire', 'wire.chat', wire)

-- 3. Cancel mid-answer: the server answers within 200 ms of the key, what
-- arrived stays, the abort marker and @You: follow.
local slow_start = wire .. '@You:\n[slow] Count for me.\n'
buf = open('slow.chat', slow_start)
press('<C-]>')
local streaming = vim.wait(LONG, function()
  return text(buf):find('word3 ', 1, true) ~= nil
end, 20)
check('cancel: the slow answer streams', streaming, show(text(buf)))
vim.api.nvim_win_set_cursor(0, { 1, 0 })
local n = #notes
local t0 = vim.loop.hrtime()
press('<LocalLeader>c')
local replied = vim.wait(LONG, function()
  return vim.tbl_contains(notes_since(n), 'chatls: stopped the answer')
end, 5)
local ms
for i = n + 1, #notes do
  if notes[i].msg == 'chatls: stopped the answer' then
    ms = (notes[i].at - t0) / 1e6
  end
end
check(('cancel: answered within 200 ms of the key (%s ms)'):format(ms and ('%.0f'):format(ms) or '-'), replied and ms < 200)
local marker = '<!-- flemma:aborted: Response interrupted by the user. -->'
local aborted = vim.wait(LONG, function()
  return text(buf):find('@You:\n\n$') ~= nil and text(buf):find(marker, 1, true) ~= nil
end, 20)
local got = text(buf)
local words = got:match('^' .. vim.pesc(slow_start) .. '\n@Assistant:\n(.-)\n+' .. vim.pesc(marker) .. '\n\n@You:\n\n$')
local count = words and select(2, words:gsub('word%d+', '')) or 0
local want_words = {}
for i = 1, count do
  want_words[i] = 'word' .. i
end
check('cancel: what arrived, once and in order, then the abort marker and @You:',
  aborted and words ~= nil and count >= 3 and words == table.concat(want_words, ' ') .. (words:sub(-1) == ' ' and ' ' or ''), show(got))
check('cancel: the abort marker once', select(2, got:gsub(vim.pesc(marker), '')) == 1, show(got))

-- 4. A 401: the provider's error is shown, the buffer is as it was.
local refused_start = wire .. '@You:\n[401] Hello?\n'
buf = open('refused.chat', refused_start)
n = #notes
press('<C-]>')
local refused = vim.wait(LONG, function()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.message:find('401', 1, true) then
      return true
    end
  end
end, 20)
check('401: an error diagnostic with the status', refused, vim.inspect(vim.diagnostic.get(buf)))
local restored = vim.wait(LONG, function()
  return text(buf) == refused_start
end, 20)
check('401: the buffer is as it was (no @Assistant: left)', restored, show(text(buf)))

-- 5. Retries: the status line says the provider is overloaded and when it
-- tries again; then the answer arrives once.
buf = open('busy.chat', wire .. '@You:\n[overloaded] Run two commands for me.\n')
local seen_retry
local busy_want = wire .. read(EXPECT .. '/after-1.chat'):gsub('Run two commands', '[overloaded] Run two commands', 1)
press('<C-]>')
local busy_done = vim.wait(LONG, function()
  local s = chatls.statusline(buf)
  if s:find('retrying in', 1, true) then
    seen_retry = s
  end
  return text(buf) == busy_want and s:find('waits for approval', 1, true) ~= nil
end, 20)
check('retry: the statusline shows "Overloaded; retrying in …"', seen_retry and seen_retry:find('Overloaded; retrying in', 1, true), seen_retry)
check('retry: the answer arrives once after the retries', busy_done, show(text(buf)))

local errors = {}
for _, note in ipairs(notes) do
  if note.level == vim.log.levels.ERROR and not note.msg:find('401', 1, true) then
    errors[#errors + 1] = note.msg
  end
end
check('no other error notifications', #errors == 0, table.concat(errors, ' | '))
end

-- A Lua error must end Neovim (with a failure), not leave it waiting.
local ok, err = xpcall(main, debug.traceback)
if not ok then
  check('the test script ran to its end', false, err)
end
finish()
