-- Headless Neovim: a rewind (SPEC §10) with the real server, as a user
-- does it (run by clients/nvim/test/run.sh). f.txt is open in a buffer,
-- g.txt is not; an approved bash call changes both; the user reloads f.txt
-- (:checktime), hovers the call (the hover lists the files first), picks
-- "Rewind files to before this call" from the code-action menu: f.txt's
-- buffer goes back to its text before the call, g.txt on disk; :undo in
-- f.txt's buffer brings the agent's version back. Every wait is on a
-- condition with a timeout.
local BIN = assert(os.getenv('CHATLS_BIN'), 'CHATLS_BIN')
local WS = assert(os.getenv('CHATLS_WS'), 'CHATLS_WS')
local PLUGIN = assert(os.getenv('CHATLS_PLUGIN'), 'CHATLS_PLUGIN')
local LOG = os.getenv('CHATLS_LOG') or (WS .. '/../chatls.log')
local LONG = 30000 -- a busy 2-core machine; a pass takes well under a second

local HERE = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h')
local t = dofile(HERE .. '/harness.lua')('nvim rewind')
local out, check, finish = t.out, t.check, t.finish
local function wait(cond)
  return vim.wait(LONG, cond, 20)
end
local read = t.read

local chatls = t.load_plugin(PLUGIN)
vim.o.autoread = true
vim.o.hidden = true
-- No sandbox: what the call may touch must not depend on bubblewrap here;
-- no autopilot: the call runs when the user says so.
chatls.setup({ cmd = { BIN, '--log-file', LOG }, settings = { sandbox = { enabled = false }, autopilot = false } })

-- f.txt is open before the conversation (the plugin follows it once
-- chatls runs); g.txt stays closed.
vim.cmd('edit ' .. WS .. '/f.txt')
local fbuf = vim.api.nvim_get_current_buf()
vim.cmd('edit ' .. WS .. '/rewind.chat')
local buf = vim.api.nvim_get_current_buf()
local client
check('server attached to the conversation', wait(function()
  client = require('chatls.lsp').client(buf)
  return client ~= nil and client.initialized
end))
if not client then
  return finish()
end
check('the plugin attached chatls to f.txt (followed for rewinds)', wait(function()
  return vim.lsp.buf_is_attached(fbuf, client.id)
end))

local function lines(b)
  return vim.api.nvim_buf_get_lines(b or buf, 0, -1, false)
end
local function find_line(pred)
  for i, l in ipairs(lines()) do
    if pred(l) then
      return i
    end
  end
end

-- 1. \y approves the call under the cursor, <M-CR> runs it (no autopilot).
local use_row = find_line(function(l)
  return l:find('**Tool Use:** `bash`', 1, true) ~= nil
end)
vim.api.nvim_win_set_cursor(0, { use_row, 0 })
vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<LocalLeader>y', true, false, true), 'x', false)
check('approved', wait(function()
  return find_line(function(l)
    return l:match('^```flemma:tool status=approved')
  end) ~= nil
end), table.concat(lines(), '\n'))
vim.api.nvim_win_set_cursor(0, { use_row, 0 })
vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<M-CR>', true, false, true), 'x', false)
if not check('the call ran (its result is in the buffer)', wait(function()
  return not find_line(function(l)
    return l:match('^```flemma:tool')
  end) and read(WS .. '/g.txt') == 'agent g\n'
end), table.concat(lines(), '\n')) then
  return finish()
end

-- 2. The user reloads f.txt, which now shows the agent's version.
vim.api.nvim_set_current_buf(fbuf)
vim.cmd('checktime')
check('f.txt reloaded with the agent version', wait(function()
  return vim.deep_equal(lines(fbuf), { 'agent f' })
end), table.concat(lines(fbuf), '\n'))
vim.api.nvim_set_current_buf(buf)
vim.api.nvim_win_set_cursor(0, { use_row, 0 })

-- 3. The hover of the call lists what a rewind changes, first.
local hover = ''
wait(function()
  local params = vim.lsp.util.make_position_params()
  for _, r in pairs(vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, 5000) or {}) do
    if r.result and r.result.contents then
      hover = r.result.contents.value or ''
    end
  end
  return hover:find('restored `f.txt` (in the editor)', 1, true) ~= nil
end)
check('hover lists f.txt (in the editor) and g.txt first', hover:find('^%*%*Rewind files to before this call%*%*')
  and hover:find('- restored `f.txt` (in the editor)', 1, true) and hover:find('- restored `g.txt`', 1, true), hover)

-- 4. The code-action menu: pick the rewind as a user would.
local offered = {}
local picked = false
vim.ui.select = function(items, _, on_choice)
  local choice
  for i, item in ipairs(items) do
    local action = item.action or item[2] -- 0.7: {client_id, action}
    offered[#offered + 1] = action.title
    if action.title == 'Rewind files to before this call' then
      choice = i
    end
  end
  picked = choice ~= nil
  on_choice(items[choice], choice)
end
vim.lsp.buf.code_action()
wait(function()
  return picked
end)
check('the menu offers the rewind, the conversation rewind and the branch', picked
  and vim.tbl_contains(offered, 'Rewind conversation and files to here') and vim.tbl_contains(offered, 'Branch conversation here'),
  table.concat(offered, ' | '))
check('f.txt restored in its buffer', wait(function()
  return vim.deep_equal(lines(fbuf), { 'v0' })
end), table.concat(lines(fbuf), '\n'))
check('g.txt (closed) restored on disk', wait(function()
  return read(WS .. '/g.txt') == 'g0\n'
end), read(WS .. '/g.txt'))
check('f.txt on disk keeps the agent version until saved', read(WS .. '/f.txt') == 'agent f\n' and vim.bo[fbuf].modified, read(WS .. '/f.txt'))
check('the conversation is as it was', find_line(function(l)
  return l:find('**Tool Use:** `bash`', 1, true) ~= nil
end) == use_row)

-- 5. :undo in f.txt's buffer brings the agent's version back.
vim.api.nvim_set_current_buf(fbuf)
vim.cmd('undo')
check(':undo brings the agent version back', vim.deep_equal(lines(fbuf), { 'agent f' }), table.concat(lines(fbuf), '\n'))

vim.lsp.stop_client(client.id)
wait(function()
  return vim.lsp.get_client_by_id(client.id) == nil
end)
finish()
