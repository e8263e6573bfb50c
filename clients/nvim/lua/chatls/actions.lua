-- The user's verbs: next step, run/cancel/explain the call under the cursor,
-- and approve/reject by applying the server's own code action (the approval
-- must be the server's edit `status=pending` -> `status=approved`, SPEC §2, so
-- we never rewrite the text ourselves).
local doc = require('chatls.doc')
local lsp = require('chatls.lsp')

local M = {}

local function notify(msg, level)
  vim.notify('chatls: ' .. msg, level or vim.log.levels.INFO)
end

local function with_client(bufnr, fn)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = lsp.client(bufnr)
  if not client then
    local missing = require('chatls.status').missing
    if missing then
      return notify(('not running: `%s` is not on PATH (see :help chatls or clients/nvim/README.md)'):format(missing), vim.log.levels.ERROR)
    end
    return notify('no chatls server attached to this buffer', vim.log.levels.WARN)
  end
  return fn(client, bufnr)
end

local function lines(bufnr)
  return vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
end

local function cursor_row()
  return vim.api.nvim_win_get_cursor(0)[1] - 1
end

-- tool_id returns the ID of the call under the cursor, or nil (with a message).
function M.tool_id(bufnr)
  local id = doc.tool_id_at(lines(bufnr), cursor_row())
  if not id then
    notify('the cursor is not in a tool call', vim.log.levels.WARN)
  end
  return id
end

-- execute sends workspace/executeCommand; cb(result) runs on success.
function M.execute(client, bufnr, command, args, cb)
  lsp.request(client, 'workspace/executeCommand', { command = command, arguments = { args } }, function(err, result)
    if err then
      return notify(command .. ' failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    if cb then
      cb(result)
    end
  end, bufnr)
end

-- advance is one step of the approval cycle (<C-]>).
function M.advance(bufnr)
  with_client(bufnr, function(client, b)
    M.execute(client, b, 'chatls.advance', { uri = vim.uri_from_bufnr(b) }, function(r)
      if type(r) ~= 'table' then
        return
      end
      -- The step says what it did; the counts are the statusline's (the
      -- server pushes them once its edits have landed).
      local did = ({ categorize = 'placeholders inserted', execute = 'running what is approved', send = 'ready to send' })[r.phase]
      if r.phase == 'send' and r.message == 'sending' then
        did = 'sending to the model'
      elseif r.phase == 'send' and r.message and r.message ~= 'ready to send' then
        did = 'ready to send; ' .. r.message -- why it was not sent
      end
      notify(did or r.message or require('chatls.status').statusline(b):gsub('^chatls: ', ''))
    end)
  end)
end

-- per_call sends command for the call under the cursor; extra joins its
-- arguments.
local function per_call(command, done, extra)
  return function(bufnr)
    with_client(bufnr, function(client, b)
      local id = M.tool_id(b)
      if id then
        M.execute(client, b, command, vim.tbl_extend('force', { uri = vim.uri_from_bufnr(b), id = id }, extra or {}), done)
      end
    end)
  end
end

-- show opens the server's markdown document in a scratch buffer (a split
-- that scrolls, q closes it), reusing the window of the last one.
local function show(name, markdown)
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].filetype = 'markdown'
    vim.bo[buf].bufhidden = 'hide'
    vim.keymap.set('n', 'q', '<cmd>close<CR>', { buffer = buf, silent = true })
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(markdown or '', '\n', { plain = true }))
  vim.bo[buf].modifiable = false
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, buf)
  else
    vim.api.nvim_set_current_win(win)
  end
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
end

M.run = per_call('chatls.run') -- <M-CR>
-- cancel stops the call under the cursor or, outside a call, the answer
-- being written (what arrived stays).
function M.cancel(bufnr)
  with_client(bufnr, function(client, b)
    local id = doc.tool_id_at(lines(b), cursor_row())
    M.execute(client, b, 'chatls.cancel', { uri = vim.uri_from_bufnr(b), id = id }, function()
      notify(id and ('cancelled ' .. id) or 'stopped the answer')
    end)
  end)
end
-- format = markdown: we show the answer's document, so no message with it.
M.explain = per_call('chatls.explain', function(r)
  show('chatls://explain', type(r) == 'table' and r.markdown or vim.inspect(r))
end, { format = 'markdown' })

function M.list_tools(bufnr)
  with_client(bufnr, function(client, b)
    M.execute(client, b, 'chatls.listTools', { uri = vim.uri_from_bufnr(b), format = 'markdown' }, function(r)
      show('chatls://tools', type(r) == 'table' and r.markdown or vim.inspect(r))
    end)
  end)
end

-- apply runs one code action: its edit, then its command (resolving it first
-- when the server left both out).
function M.apply(client, bufnr, action)
  if not action.edit and not action.command and lsp.supports_method(client, 'codeAction/resolve') then
    lsp.request(client, 'codeAction/resolve', action, function(err, resolved)
      if not err and resolved then
        M.apply(client, bufnr, resolved)
      end
    end, bufnr)
    return
  end
  if action.edit then
    vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
  end
  local cmd = type(action.command) == 'table' and action.command or (type(action.command) == 'string' and action)
  if cmd then
    lsp.request(client, 'workspace/executeCommand', { command = cmd.command, arguments = cmd.arguments }, nil, bufnr)
  end
end

-- code_action_range is where to ask for the actions of call id: the cursor
-- when it is inside the call's placeholder, else the placeholder's fence line.
local function code_action_range(bufnr, id)
  local row = cursor_row()
  local ph = doc.placeholder(lines(bufnr), id)
  if ph and not (row >= ph.header and row <= (ph.closer or ph.opener)) then
    row = ph.opener or ph.header
  end
  local pos = { line = row, character = 0 }
  return { start = pos, ['end'] = pos }
end

-- target returns the call an approve/reject key acts on: the call under the
-- cursor when it waits for approval, else the nearest one that does (saying
-- which, since it is not where the cursor is), else the call under the
-- cursor (the server then says why there is nothing to do).
function M.target(bufnr, verb)
  local ls = lines(bufnr)
  local row = cursor_row()
  local id = doc.tool_id_at(ls, row)
  local ph = id and doc.placeholder(ls, id)
  if ph and ph.status == 'pending' then
    return id
  end
  local p = doc.nearest_pending(ls, row)
  if p then
    if verb then
      notify(('%s %s %s (line %d)'):format(verb, p.name or 'call', p.id, p.header + 1))
    end
    return p.id
  end
  if not id then
    notify('no call waits for approval', vim.log.levels.WARN)
  end
  return id
end

-- code_action applies the first action whose title matches pattern (a Lua
-- pattern) and does not match except, for the call M.target picks.
function M.code_action(pattern, except, bufnr, verb)
  with_client(bufnr, function(client, b)
    local id = M.target(b, verb)
    if not id then
      return
    end
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(b) },
      range = code_action_range(b, id),
      context = { diagnostics = {} },
    }
    lsp.request(client, 'textDocument/codeAction', params, function(err, actions)
      if err then
        return notify('code actions failed: ' .. (err.message or ''), vim.log.levels.ERROR)
      end
      for _, a in ipairs(actions or {}) do
        if a.title:match(pattern) and not (except and a.title:match(except)) then
          return M.apply(client, b, a)
        end
      end
      notify('nothing to ' .. pattern:gsub('^%^', ''):gsub('%s*$', ''):lower() .. ' here', vim.log.levels.WARN)
    end, b)
  end)
end

function M.approve(bufnr)
  M.code_action('^Approve ', '^Approve all ', bufnr, 'approving')
end

function M.reject(bufnr)
  M.code_action('^Reject ', '^Reject all ', bufnr, 'rejecting')
end

function M.approve_all(bufnr)
  M.code_action('^Approve all ', nil, bufnr)
end

-- jump moves the cursor to the fence line of the next (step 1) or previous
-- (step -1) call that waits for approval, wrapping around the buffer.
local function jump(step)
  return function(bufnr)
    bufnr = bufnr or vim.api.nvim_get_current_buf()
    local all = doc.pending(lines(bufnr))
    if #all == 0 then
      return notify('no call waits for approval', vim.log.levels.WARN)
    end
    local row = cursor_row()
    local first, last = all[1], all[#all]
    local pick = step > 0 and first or last
    for i = 1, #all do
      local p = step > 0 and all[i] or all[#all + 1 - i]
      local at = p.opener or p.header
      if (step > 0 and at > row) or (step < 0 and at < row) then
        pick = p
        break
      end
    end
    vim.api.nvim_win_set_cursor(0, { (pick.opener or pick.header) + 1, 0 })
  end
end

M.next_pending = jump(1) -- ]p
M.prev_pending = jump(-1) -- [p

return M
