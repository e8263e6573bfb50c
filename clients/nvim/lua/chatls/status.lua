-- Statusline text: pending approvals and running tools. Pending comes from the
-- buffer text (placeholders with status pending), so it is right even before
-- the server answers; running comes from the server's $/progress reports,
-- falling back to approved placeholders that have no result yet.
local doc = require('chatls.doc')

local M = {}

M.running = {} -- client_id -> { token -> {title=, message=} }
M.server_text = {} -- bufnr -> the server's last chatls/status text
M.missing = nil -- the server binary, when it is not on PATH

-- on_status takes the server's chatls/status notice: the one source of the
-- counts (the buffer text cannot know what runs or what already ran).
function M.on_status(_, result)
  if type(result) ~= 'table' or type(result.uri) ~= 'string' then
    return
  end
  local bufnr = vim.uri_to_bufnr(result.uri)
  M.server_text[bufnr] = result.text
  vim.schedule(function()
    vim.cmd('redrawstatus!')
  end)
end

-- on_progress tracks chatls's work-done progress; installed as the
-- client's $/progress handler in front of Neovim's own.
function M.on_progress(err, result, ctx, config)
  local v = result and result.value
  if type(v) == 'table' and v.kind then
    local tokens = M.running[ctx.client_id] or {}
    M.running[ctx.client_id] = tokens
    local key = tostring(result.token)
    if v.kind == 'end' then
      tokens[key] = nil
    else
      local t = tokens[key] or {}
      t.title = v.title or t.title
      t.message = v.message or t.message
      tokens[key] = t
    end
    vim.schedule(function()
      vim.cmd('redrawstatus!')
    end)
  end
  local default = vim.lsp.handlers['$/progress']
  if default then
    return default(err, result, ctx, config)
  end
end

-- counts returns pending, running and the latest progress message for bufnr.
function M.counts(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local c = doc.counts(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false))
  local running, message = 0, nil
  local client = require('chatls.lsp').client(bufnr)
  for _, t in pairs(client and M.running[client.id] or {}) do
    running = running + 1
    message = t.message or t.title
  end
  return c.pending, math.max(running, c.approved), message
end

-- statusline is for 'statusline' / lualine:  %{v:lua.require'chatls'.statusline()}
-- It returns '' outside chat buffers so it can stay in a global statusline.
function M.statusline(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.bo[bufnr].filetype ~= 'chat' then
    return ''
  end
  if M.missing then
    return 'chatls: not running (' .. M.missing .. ' not found)'
  end
  local text = M.server_text[bufnr]
  if text then
    return 'chatls: ' .. text
  end
  -- Before the server's first notice: what the buffer says.
  local pending, running, message = M.counts(bufnr)
  if pending == 0 and running == 0 then
    return 'chatls: starting'
  end
  local s = ('chatls: %d pending, %d running'):format(pending, running)
  if message then
    s = s .. ' (' .. message .. ')'
  end
  return s
end

return M
