-- Headless Neovim test of the chatls plugin against the real server.
-- Run by clients/nvim/test/run.sh:  nvim --headless -u NONE -i NONE -n -c 'luafile test.lua'
-- It acts as a user would: open the file, read the hint, press the approve
-- map, wait for the result in the buffer, press <C-]>, save.
local BIN = assert(os.getenv('CHATLS_BIN'), 'CHATLS_BIN')
local WS = assert(os.getenv('CHATLS_WS'), 'CHATLS_WS')
local PLUGIN = assert(os.getenv('CHATLS_PLUGIN'), 'CHATLS_PLUGIN')
local LOG = os.getenv('CHATLS_LOG') or (WS .. '/../chatls.log')

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
  out(('nvim: %d passed, %d failed'):format(passed, failed))
  vim.cmd(failed == 0 and 'qa!' or 'cq!')
end
local function wait(ms, cond)
  return vim.wait(ms, cond, 20)
end

vim.opt.runtimepath:prepend(PLUGIN)
vim.cmd('filetype plugin on')
vim.cmd('syntax on')
vim.g.maplocalleader = '\\'

-- What Neovim prints (e.g. "Workspace edit <label>" for each server edit).
local printed = {}
local real_print = print
_G.print = function(...)
  printed[#printed + 1] = table.concat(vim.tbl_map(tostring, { ... }), ' ')
  real_print(...)
end

local notes = {}
vim.notify = function(msg, level)
  notes[#notes + 1] = { msg = msg, level = level }
  out('  notify: ' .. msg)
end

local chatls = require('chatls')
local hints = require('chatls.hints')
chatls.setup({ cmd = { BIN, '--log-file', LOG } })

local path = WS .. '/approve-echo.chat'
local on_disk = vim.fn.readfile(path)
vim.cmd('edit ' .. path)
local buf = vim.api.nvim_get_current_buf()
local function lines()
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end
local function find_line(pred)
  for i, l in ipairs(lines()) do
    if pred(l) then
      return i - 1
    end
  end
end

-- 1. filetype, syntax
check('filetype is chat', vim.bo.filetype == 'chat', vim.bo.filetype)
local role_row = find_line(function(l)
  return l == '@Assistant:'
end)
local syn = vim.fn.synIDattr(vim.fn.synID(role_row + 1, 1, 1), 'name')
check('syntax marks role lines', syn == 'chatRole', syn)

-- 2. server starts and attaches
local client
check('server attached and initialized', wait(8000, function()
  client = require('chatls.lsp').client(buf)
  return client ~= nil and client.initialized
end))
if not client then
  return finish()
end

-- 3. diagnostics: the pending approval shows as Information
local info
wait(8000, function()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.severity == vim.diagnostic.severity.INFO then
      info = d
    end
  end
  return info ~= nil
end)
check('pending approval diagnostic (Information)', info ~= nil, vim.inspect(vim.diagnostic.get(buf)))

-- 4. opening edits nothing (SPEC §2)
check('opening the file changed nothing', vim.deep_equal(lines(), on_disk) and not vim.bo.modified)

-- 5. inlay hint with the preview, drawn at the placeholder's fence opener
local opener = find_line(function(l)
  return l:match('^```flemma:tool status=pending')
end)
local hint_text
wait(8000, function()
  if hints.native then
    for _, h in ipairs(vim.lsp.inlay_hint.get({ bufnr = buf }) or {}) do
      local l = h.inlay_hint.label
      hint_text = type(l) == 'string' and l or l[1].value
    end
  else
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, hints.ns, 0, -1, { details = true })) do
      if m[2] == opener then
        hint_text = m[4].virt_text[1][1]
      end
    end
  end
  return hint_text and hint_text:find('echo hello-from-chatls', 1, true)
end)
check('inlay hint shows the preview at the fence opener', hint_text and hint_text:find('bash: $ echo hello-from-chatls', 1, true), hint_text)

-- 6. statusline
-- The server pushes the status, with the key to press (the plugin passed its key names).
local waiting = 'chatls: 1 call waits for approval (press \\y (approve))'
wait(5000, function()
  return chatls.statusline() == waiting
end)
check('statusline shows the pushed status with the key', chatls.statusline() == waiting, chatls.statusline())

-- 7. the server's code actions at the placeholder
vim.api.nvim_win_set_cursor(0, { opener + 1, 0 })
local params = vim.lsp.util.make_range_params()
params.context = { diagnostics = {} }
local titles = {}
for _, r in pairs(vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 5000) or {}) do
  for _, a in ipairs(r.result or {}) do
    titles[#titles + 1] = a.title
  end
end
local function has_title(prefix)
  for _, t in ipairs(titles) do
    if t:sub(1, #prefix) == prefix then
      return true
    end
  end
end
check('code action "Approve bash: $ echo hello-from-chatls"', has_title('Approve bash: $ echo hello-from-chatls'), table.concat(titles, ' | '))
check('code action "Reject bash"', has_title('Reject bash'), table.concat(titles, ' | '))

-- 8. <M-CR> sends chatls.run {uri, id} for the call under the cursor; the
-- server refuses to run a pending call (SPEC §2), which proves both arrived.
local json_row = find_line(function(l)
  return l:find('"command":"echo hello-from-chatls"', 1, true) ~= nil
end)
vim.api.nvim_win_set_cursor(0, { json_row + 1, 0 })
local n_run = #notes
vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<M-CR>', true, false, true), 'x', false)
wait(5000, function()
  return #notes > n_run
end)
local run_note = notes[n_run + 1] and notes[n_run + 1].msg or ''
check('<M-CR> runs chatls.run for toolu_01A (refused while pending)', run_note:find('toolu_01A', 1, true) and run_note:find('waits for your approval: press \\y (approve) first', 1, true), run_note)
local first_unexpected = #notes + 1

-- 8b. explain opens a readable document in a split, not a dump
vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<LocalLeader>e', true, false, true), 'x', false)
wait(5000, function()
  return vim.fn.bufnr('chatls://explain') ~= -1 and vim.fn.bufwinid(vim.fn.bufnr('chatls://explain')) ~= -1
end)
local explain_buf = vim.fn.bufnr('chatls://explain')
local explain = explain_buf ~= -1 and vim.api.nvim_buf_get_lines(explain_buf, 0, -1, false) or {}
check('explain shows a markdown document in a split', explain[1] == '# `bash` (`toolu_01A`) asks for your approval'
  and vim.bo[explain_buf].filetype == 'markdown' and not table.concat(explain, '\n'):find('\\n', 1, true), table.concat(explain, '\n'))
if vim.fn.bufwinid(explain_buf) ~= -1 then
  vim.api.nvim_set_current_win(vim.fn.bufwinid(explain_buf))
  vim.cmd('close')
end
vim.api.nvim_set_current_win(vim.fn.bufwinid(buf))
vim.api.nvim_win_set_cursor(0, { json_row + 1, 0 })

-- 9. approve with the key map, from inside the tool use's JSON
vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<LocalLeader>y', true, false, true), 'x', false)
local result_row
wait(15000, function()
  result_row = find_line(function(l)
    return l == 'hello-from-chatls'
  end)
  return result_row ~= nil
end)
check('approve map: the result is written into the buffer', result_row ~= nil, table.concat(lines(), '\n'))
check('no placeholder left', not find_line(function(l)
  return l:match('^```flemma:')
end))
local ready = 'chatls: ready to send (press <C-]> (next step))'
wait(5000, function()
  return chatls.statusline() == ready
end)
check('statusline: ready to send after the run', chatls.statusline() == ready, chatls.statusline())

-- 10. <C-]> advances: nothing left to approve, so it sends to the model
-- (run.sh configured an offline scripted one) and the answer streams in.
local before = #notes
vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<C-]>', true, false, true), 'x', false)
wait(5000, function()
  return #notes > before
end)
local advance_note = notes[before + 1] and notes[before + 1].msg or ''
check('<C-]> sends the conversation to the model', advance_note == 'chatls: sending to the model', advance_note)
local answered = wait(15000, function()
  return find_line(function(l)
    return l == 'Hello from the scripted model.'
  end) ~= nil
end)
check('the answer is written into the buffer', answered, table.concat(lines(), '\n'))
wait(5000, function()
  return chatls.statusline():find('write your question under the last @You:', 1, true) ~= nil
end)
check('statusline: your turn again', chatls.statusline():find('write your question under the last @You:', 1, true) ~= nil, chatls.statusline())

-- 11. the result and the answer reach the disk on :write
vim.cmd('silent write')
local saved = table.concat(vim.fn.readfile(path), '\n')
check('saved file holds the result and the answer', saved:find('\nhello%-from%-chatls\n.*Hello from the scripted model%.') ~= nil, saved)

local errors = {}
for i = first_unexpected, #notes do
  local n = notes[i]
  if n.level == vim.log.levels.ERROR then
    errors[#errors + 1] = n.msg
  end
end
check('no error notifications', #errors == 0, table.concat(errors, '; '))
local edit_lines = vim.tbl_filter(function(p)
  return p:find('Workspace edit', 1, true) ~= nil
end, printed)
check('server edits print nothing (the statusline says it)', #edit_lines == 0, table.concat(edit_lines, ' | '))

vim.lsp.stop_client(client.id)
wait(2000, function()
  return vim.lsp.get_client_by_id(client.id) == nil
end)

-- 12. chatls missing from PATH: one clear message naming the setting, the
-- statusline says so, and the keys say so instead of falling through.
local n_missing = #notes
chatls.setup({ cmd = { '/nonexistent/chatls' } })
vim.fn.writefile({ '@You:', 'hi' }, WS .. '/other.chat')
vim.cmd('edit ' .. WS .. '/other.chat')
local said = {}
for i = n_missing + 1, #notes do
  said[#said + 1] = notes[i].msg
end
check('missing binary: one error naming the cmd setting', #said == 1 and said[1]:find('`/nonexistent/chatls` is not on PATH', 1, true)
  and said[1]:find("setup({ cmd = {", 1, true) and notes[#notes].level == vim.log.levels.ERROR, table.concat(said, ' | '))
check('missing binary: the statusline says not running', chatls.statusline() == 'chatls: not running (/nonexistent/chatls not found)', chatls.statusline())
vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<C-]>', true, false, true), 'x', false)
check('missing binary: <C-]> says why nothing happens', notes[#notes].msg:find('not running', 1, true) ~= nil, notes[#notes].msg)
finish()
