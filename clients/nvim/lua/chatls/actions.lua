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
      if r.ready then
        notify('ready to send')
      else
        notify(('%s: %d pending, %d running'):format(r.phase or 'step', r.pending or 0, r.running or 0))
      end
    end)
  end)
end

local function per_call(command, done)
  return function(bufnr)
    with_client(bufnr, function(client, b)
      local id = M.tool_id(b)
      if id then
        M.execute(client, b, command, { uri = vim.uri_from_bufnr(b), id = id }, done)
      end
    end)
  end
end

local function show(title, result)
  local text = type(result) == 'string' and result or vim.inspect(result)
  local body = vim.split(text, '\n', { plain = true })
  table.insert(body, 1, title)
  vim.lsp.util.open_floating_preview(body, 'markdown', { border = 'single' })
end

M.run = per_call('chatls.run') -- <M-CR>
M.cancel = per_call('chatls.cancel')
M.explain = per_call('chatls.explain', function(r)
  show('# chatls: decision trace', r)
end)

function M.list_tools(bufnr)
  with_client(bufnr, function(client, b)
    M.execute(client, b, 'chatls.listTools', { uri = vim.uri_from_bufnr(b) }, function(r)
      show('# chatls: tools', r)
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

-- code_action applies the first action whose title matches pattern (a Lua
-- pattern) and does not match except.
function M.code_action(pattern, except, bufnr)
  with_client(bufnr, function(client, b)
    local id = M.tool_id(b)
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
  M.code_action('^Approve ', '^Approve all ', bufnr)
end

function M.reject(bufnr)
  M.code_action('^Reject ', '^Reject all ', bufnr)
end

function M.approve_all(bufnr)
  M.code_action('^Approve all ', nil, bufnr)
end

return M
