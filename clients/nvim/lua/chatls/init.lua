-- chatls for Neovim 0.7+: starts the chatls language server for .chat files
-- (one per workspace), adds key maps for the approval cycle, draws inlay hints
-- on versions without native support, and offers a statusline function.
--
--   require('chatls').setup({ cmd = { 'chatls' }, settings = { tools = { ... } } })
local actions = require('chatls.actions')
local hints = require('chatls.hints')
local lsp = require('chatls.lsp')
local status = require('chatls.status')

local M = {}

M.defaults = {
  cmd = { 'chatls' },
  cmd_env = nil,
  -- SPEC §4 settings, sent as initializationOptions and workspace/configuration.
  settings = nil,
  hints = true,
  -- Attach chatls to the other file buffers of its workspace, so that a
  -- rewind (SPEC §10) restores them in the buffer, where u undoes it.
  follow_files = true,
  -- Buffer-local maps in .chat buffers; set one to false to leave it out.
  keys = {
    advance = '<C-]>',
    run = '<M-CR>',
    approve = '<LocalLeader>y',
    reject = '<LocalLeader>n',
    approve_all = '<LocalLeader>Y',
    cancel = '<LocalLeader>c',
    explain = '<LocalLeader>e',
    next_pending = ']p', -- the next call that waits for approval
    prev_pending = '[p',
  },
  on_attach = nil, -- function(client, bufnr) called after ours
}

M.options = nil

local KEY_DOCS = {
  advance = 'chatls: next step (categorize, run approved, or ready to send)',
  run = 'chatls: run the tool call under the cursor',
  approve = 'chatls: approve the call under the cursor, else the nearest pending one',
  reject = 'chatls: reject the call under the cursor, else the nearest pending one',
  approve_all = 'chatls: approve all pending calls',
  cancel = 'chatls: cancel the tool under the cursor, or the answer being written',
  explain = 'chatls: explain the policy decision for the call under the cursor',
  next_pending = 'chatls: go to the next call that waits for approval',
  prev_pending = 'chatls: go to the previous call that waits for approval',
}

local function set_keys(bufnr)
  for name, lhs in pairs(M.options.keys or {}) do
    if lhs and actions[name] then
      vim.keymap.set('n', lhs, function()
        actions[name](bufnr)
      end, { buffer = bufnr, desc = KEY_DOCS[name], silent = true })
    end
  end
end

local function on_attach(client, bufnr)
  if vim.bo[bufnr].filetype ~= 'chat' then
    return -- a followed file (follow_files): no maps, no hints
  end
  if M.options.follow_files then
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) then
        lsp.follow(b)
      end
    end
  end
  set_keys(bufnr)
  if M.options.hints then
    hints.enable(bufnr)
  end
  if M.options.on_attach then
    M.options.on_attach(client, bufnr)
  end
end

-- apply_edit applies the server's edits without their label: Neovim 0.7
-- prints each label ("Workspace edit chatls: streaming the answer"), dozens
-- of lines while an answer streams; the statusline already says what happens.
local function apply_edit(err, params, ctx)
  if type(params) == 'table' then
    params.label = nil
  end
  return vim.lsp.handlers['workspace/applyEdit'](err, params, ctx)
end

local function handlers()
  local h = { ['$/progress'] = status.on_progress, ['chatls/status'] = status.on_status, ['workspace/applyEdit'] = apply_edit }
  if not hints.native then
    h['workspace/inlayHint/refresh'] = hints.on_refresh
  end
  return h
end

-- key_names are the maps as a user reads them (<LocalLeader> resolved), for
-- the server's messages: "press \y (approve)". Settings names are camelCase.
local function key_names()
  local leader = vim.g.maplocalleader or '\\'
  local out = {}
  for name, lhs in pairs(M.options.keys or {}) do
    if lhs then
      local key = ({ approve_all = 'approveAll', next_pending = 'nextPending', prev_pending = 'prevPending' })[name] or name
      out[key] = (lhs:gsub('<LocalLeader>', leader))
    end
  end
  return out
end

-- missing tells once that the server cannot start, and with which setting
-- that is fixed; the maps stay and say the same.
local told_missing = false
local function missing(exe)
  status.missing = exe
  if not told_missing then
    told_missing = true
    vim.notify(('chatls: the server `%s` is not on PATH. Install it (go install ./cmd/chatls in the chatls checkout) '
      .. "or give its full path: require('chatls').setup({ cmd = { '/path/to/chatls' } })"):format(exe), vim.log.levels.ERROR)
  end
end

-- attach starts/reuses the workspace's server for a chat buffer.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.api.nvim_buf_get_name(bufnr) == '' then
    return -- the server keys documents by file URI
  end
  local exe = (M.options.cmd or {})[1]
  if exe and vim.fn.executable(exe) == 0 then
    missing(exe)
    set_keys(bufnr)
    return
  end
  local opts = vim.tbl_extend('force', M.options, { on_attach = on_attach })
  return lsp.attach(bufnr, opts, handlers())
end

local COMMANDS = {
  ChatlsAdvance = 'advance',
  ChatlsRun = 'run',
  ChatlsApprove = 'approve',
  ChatlsReject = 'reject',
  ChatlsApproveAll = 'approve_all',
  ChatlsCancel = 'cancel',
  ChatlsExplain = 'explain',
  ChatlsTools = 'list_tools',
  ChatlsNextPending = 'next_pending',
  ChatlsPrevPending = 'prev_pending',
}

function M.setup(opts)
  M.options = vim.tbl_deep_extend('force', M.defaults, opts or {})
  M.options.settings = vim.tbl_deep_extend('keep', M.options.settings or {}, { keys = key_names() })
  local group = vim.api.nvim_create_augroup('chatls', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = '*',
    callback = function(args)
      if args.match == 'chat' then
        M.attach(args.buf)
      elseif M.options.follow_files then
        lsp.follow(args.buf) -- another file: followed by a running chatls
      end
    end,
  })
  for name, fn in pairs(COMMANDS) do
    vim.api.nvim_create_user_command(name, function()
      actions[fn]()
    end, { desc = 'chatls: ' .. fn:gsub('_', ' ') })
  end
  -- Buffers opened before setup() ran.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].filetype == 'chat' then
      M.attach(b)
    end
  end
end

M.statusline = status.statusline
M.actions = actions

return M
