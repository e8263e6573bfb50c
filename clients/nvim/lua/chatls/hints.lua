-- Inlay hints (the preview of each pending call, SPEC §3). Neovim 0.10+ draws
-- them natively. 0.7-0.9 have no inlay-hint support, so there we request
-- textDocument/inlayHint ourselves and draw the labels as end-of-line virtual
-- text: the server puts each hint at the end of a fence opener line anyway.
local lsp = require('chatls.lsp')

local M = {}

M.ns = vim.api.nvim_create_namespace('chatls_hints')
M.native = vim.fn.has('nvim-0.10') == 1 and vim.lsp.inlay_hint ~= nil

vim.cmd('highlight default link ChatlsHint Comment')

local DEBOUNCE_MS = 200
local timers = {} -- bufnr -> uv timer
local attached = {} -- bufnr -> true while we listen to its changes

local function label_text(label)
  if type(label) == 'string' then
    return label
  end
  local parts = {}
  for _, p in ipairs(label or {}) do
    parts[#parts + 1] = p.value
  end
  return table.concat(parts)
end

-- render replaces the buffer's hint extmarks with these hints.
function M.render(bufnr, hints)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  local last = vim.api.nvim_buf_line_count(bufnr)
  for _, h in ipairs(hints or {}) do
    local line = h.position.line
    if line < last then
      vim.api.nvim_buf_set_extmark(bufnr, M.ns, line, 0, {
        virt_text = { { '  ' .. label_text(h.label), 'ChatlsHint' } },
        virt_text_pos = 'eol',
        hl_mode = 'combine',
      })
    end
  end
end

-- request asks the server for the whole buffer's hints and draws them.
function M.request(bufnr)
  local client = lsp.client(bufnr)
  if not client or not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = {
      start = { line = 0, character = 0 },
      ['end'] = { line = vim.api.nvim_buf_line_count(bufnr), character = 0 },
    },
  }
  lsp.request(client, 'textDocument/inlayHint', params, function(err, result)
    if not err then
      M.render(bufnr, result)
    end
  end, bufnr)
end

local function schedule(bufnr)
  local t = timers[bufnr]
  if not t then
    t = lsp.uv.new_timer()
    timers[bufnr] = t
  end
  t:stop()
  t:start(DEBOUNCE_MS, 0, vim.schedule_wrap(function()
    M.request(bufnr)
  end))
end

-- on_refresh answers the server's workspace/inlayHint/refresh request
-- (sent when a tool starts, ticks or finishes) by redrawing every chat buffer.
function M.on_refresh(_, _, ctx)
  for bufnr in pairs(attached) do
    local c = lsp.client(bufnr)
    if c and c.id == ctx.client_id then
      schedule(bufnr)
    end
  end
  return vim.NIL
end

-- enable turns hints on for a buffer the chatls client is attached to.
function M.enable(bufnr)
  if M.native then
    -- The signature changed during 0.10 development; accept both.
    if not pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr }) then
      pcall(vim.lsp.inlay_hint.enable, bufnr, true)
    end
    return
  end
  if attached[bufnr] then
    return M.request(bufnr)
  end
  attached[bufnr] = true
  -- on_lines sees every change, typed or applied by the server's applyEdit.
  vim.api.nvim_buf_attach(bufnr, false, {
    on_lines = function()
      if not attached[bufnr] then
        return true -- detach
      end
      schedule(bufnr)
    end,
    on_detach = function()
      attached[bufnr] = nil
      if timers[bufnr] then
        timers[bufnr]:stop()
        timers[bufnr]:close()
        timers[bufnr] = nil
      end
    end,
  })
  M.request(bufnr)
end

return M
