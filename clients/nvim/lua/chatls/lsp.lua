-- Starting chatls: one client per workspace root, attached to every .chat
-- buffer under it. vim.lsp.start does exactly that on 0.8+; 0.7 (Debian 12)
-- lacks it, so there we keep the root -> client map ourselves.
local M = {}

local has_start = vim.fn.has('nvim-0.8') == 1 and vim.lsp.start ~= nil

-- root_markers are looked for upwards from the document; the first directory
-- holding one is the workspace root (SPEC §4: else the document's directory).
M.root_markers = { '.chatls.toml', '.git' }

local clients_by_root = {} -- 0.7 only

-- Neovim 0.11 made client methods proper methods (client:request) and
-- deprecates the 0.7-0.10 function fields (client.request); call whichever
-- this version has so neither warns.
local methods = vim.fn.has('nvim-0.11') == 1

function M.request(client, method, params, handler, bufnr)
  if methods then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.supports_method(client, method)
  if methods then
    return client:supports_method(method)
  end
  return client.supports_method(method)
end

-- uv is the libuv binding: vim.uv from 0.10, vim.loop before.
M.uv = vim.uv or vim.loop

local function parent_of(path)
  path = vim.fn.fnamemodify(path, ':p'):gsub('/$', '')
  return vim.fn.fnamemodify(path, ':h')
end

function M.find_root(bufnr)
  local dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':p:h')
  for _, marker in ipairs(M.root_markers) do
    local f = vim.fn.findfile(marker, dir .. ';')
    if f == '' then
      f = vim.fn.finddir(marker, dir .. ';')
    end
    if f ~= '' then
      return parent_of(f)
    end
  end
  return dir
end

-- capabilities adds what 0.7-0.9 do not advertise but this plugin handles:
-- inlay hints (drawn as virtual text) and their refresh request.
local function capabilities(extra)
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.textDocument.inlayHint = caps.textDocument.inlayHint or { dynamicRegistration = false }
  caps.workspace.inlayHint = caps.workspace.inlayHint or { refreshSupport = true }
  caps.window = caps.window or {}
  caps.window.workDoneProgress = true
  return vim.tbl_deep_extend('force', caps, extra or {})
end

-- config builds the client config for one root from the user's options.
function M.config(opts, root, handlers)
  return {
    name = 'chatls',
    cmd = opts.cmd,
    cmd_env = opts.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    -- The settings object is both initializationOptions and the answer to
    -- workspace/configuration for section `chatls` (SPEC §4).
    init_options = opts.settings or vim.empty_dict(),
    settings = { chatls = opts.settings or vim.empty_dict() },
    capabilities = capabilities(opts.capabilities),
    handlers = handlers,
    on_attach = opts.on_attach,
    flags = { debounce_text_changes = 150 },
  }
end

-- attach starts (or reuses) the client for the buffer's root and attaches it.
-- Returns the client id, or nil when the server could not start.
function M.attach(bufnr, opts, handlers)
  local root = M.find_root(bufnr)
  local config = M.config(opts, root, handlers)
  if has_start then
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  local id = clients_by_root[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(config)
    clients_by_root[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

-- follow attaches the running chatls client of the buffer's workspace to
-- a buffer that is not a conversation, so that a rewind changes it in the
-- buffer (its undo takes the rewind back) instead of on disk. It starts no
-- server; a buffer without a file name or filetype is left alone (the
-- server takes a document without a language for a conversation).
function M.follow(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or vim.bo[bufnr].filetype == '' or vim.bo[bufnr].filetype == 'chat' or vim.bo[bufnr].buftype ~= '' then
    return
  end
  name = vim.fn.fnamemodify(name, ':p')
  local list = vim.lsp.get_clients and vim.lsp.get_clients({ name = 'chatls' }) or vim.lsp.get_active_clients()
  for _, c in ipairs(list) do
    local root = c.config and c.config.root_dir
    if c.name == 'chatls' and root and name:sub(1, #root + 1) == root .. '/' then
      vim.lsp.buf_attach_client(bufnr, c.id)
    end
  end
end

-- client returns the chatls client attached to bufnr, if any.
function M.client(bufnr)
  local list
  if vim.lsp.get_clients then -- 0.10+
    list = vim.lsp.get_clients({ bufnr = bufnr, name = 'chatls' })
  else
    list = vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
  end
  for _, c in ipairs(list) do
    if c.name == 'chatls' then
      return c
    end
  end
end

return M
