-- Headless Neovim: the context window with the real server (run by
-- clients/nvim/test/run.sh after conversation.lua). A document whose model
-- has a 2,000-token window is sent once; the answer's count (1,700 tokens)
-- passes context.warnAt, so the @You: marker warns and the statusline says
-- so. Neovim's own code action menu (vim.lsp.buf.code_action, the choice
-- made through vim.ui.select as a user would) applies "Compact the
-- conversation": the buffer gets the compacted line and the summary in one
-- edit, the archive holds what left byte for byte, and :undo brings the
-- text back. Every wait watches a condition with a timeout.
local BIN = assert(os.getenv('CHATLS_BIN'), 'CHATLS_BIN')
local WS = assert(os.getenv('CHATLS_WS'), 'CHATLS_WS')
local PLUGIN = assert(os.getenv('CHATLS_PLUGIN'), 'CHATLS_PLUGIN')
local SUMMARY = assert(os.getenv('CHATLS_SUMMARY'), 'CHATLS_SUMMARY')
local LOG = os.getenv('CHATLS_LOG') or (WS .. '/../chatls.log')
local LONG = 60000 -- a busy 2-core machine shared with other builds

local HERE = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h')
local t = dofile(HERE .. '/harness.lua')('nvim context')
local out, check = t.out, t.check
local read, text, show, press = t.read, t.text, t.show, t.press

local chatls = t.load_plugin(PLUGIN)
chatls.setup({ cmd = { BIN, '--log-file', LOG } })



-- context_warning is the context window's diagnostic in buf, if any.
local function context_warning(buf)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.message:find('context window', 1, true) then
      return d
    end
  end
end

local function main()
  -- Four turns of about 1 KB each, then the question: sent at about 57%
  -- of the window (3.5 bytes a token without a count).
  local turns = {}
  for i, q in ipairs({ 'the parser', 'the lexer', 'the numbers', 'the errors' }) do
    turns[i] = ('@You:\nWhat about %s? %s\n\n@Assistant:\n%s\n\n'):format(q, ('Tell me more. '):rep(30), ('It is fine now. '):rep(40))
  end
  local start = table.concat(turns) .. '@You:\nWhat is left?\n'
  local path = WS .. '/ctx.chat'
  local f = assert(io.open(path, 'wb'))
  f:write(start)
  f:close()
  vim.cmd('edit ' .. path)
  local buf = vim.api.nvim_get_current_buf()
  local attached = vim.wait(LONG, function()
    local c = require('chatls.lsp').client(buf)
    return c ~= nil and c.initialized and chatls.statusline(buf) ~= 'chatls: starting'
  end, 20)
  check('context: server attached, status pushed', attached, chatls.statusline(buf))

  vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buf), 0 })
  press('<C-]>')
  local answered = vim.wait(LONG, function()
    return text(buf):find('Nothing is left.\n\n@You:\n', 1, true) ~= nil and context_warning(buf) ~= nil
  end, 20)
  check('context: the answer, then the warning on @You:', answered, show(text(buf)) .. vim.inspect(vim.diagnostic.get(buf)))
  if not answered then
    return
  end
  local warning = context_warning(buf)
  local before = text(buf)
  local marker_row = #vim.split(before, '\n', { plain = true }) - 3 -- the last @You: (0-based), before its empty line
  check('context: the warning is on the last @You: and says how full',
    warning.lnum == marker_row and vim.api.nvim_buf_get_lines(buf, marker_row, marker_row + 1, false)[1] == '@You:'
      and warning.message:find("The conversation uses about 86% of the model's 2k-token context window", 1, true) ~= nil,
    vim.inspect(warning))
  local status_ok = vim.wait(LONG, function()
    local s = chatls.statusline(buf)
    return s:find('context 86% of 2k: compact the conversation', 1, true) ~= nil and s:find('· 85% of 2k ·', 1, true) ~= nil
  end, 20)
  check("context: the statusline shows the request's share and the warning", status_ok, chatls.statusline(buf))

  -- The code action menu (typed, as a user opens it), on the marker,
  -- picking by title.
  vim.api.nvim_win_set_cursor(0, { marker_row + 1, 0 })
  local offered
  vim.ui.select = function(items, opts, on_choice)
    offered = {}
    local pick
    for i, item in ipairs(items) do
      local title = opts.format_item and opts.format_item(item) or tostring(item)
      offered[#offered + 1] = title
      if title:find('Compact the conversation', 1, true) and not pick then
        pick = i
      end
    end
    if pick then
      on_choice(items[pick], pick)
    else
      on_choice(nil, nil)
    end
  end
  press(':lua vim.lsp.buf.code_action()<CR>')
  local compacted = vim.wait(LONG, function()
    return text(buf):find('<!-- chatls:compacted ', 1, true) ~= nil
  end, 20)
  check('context: "Compact the conversation" is offered on the warning',
    offered and vim.tbl_contains(offered, 'Compact the conversation'), vim.inspect(offered))
  check('context: the action compacts the buffer', compacted, show(text(buf)))
  if not compacted then
    return
  end
  local after = text(buf)
  local archive = read(WS .. '/ctx.archive-1.chat')
  local moved = after:match('^@You:\n<!%-%- chatls:compacted (%d+) messages into ctx%.archive%-1%.chat %-%->\n\n')
  check('context: the archive holds the moved messages, byte for byte',
    archive ~= nil and #archive > 0 and before:sub(1, #archive) == archive, show(archive))
  local want = ('@You:\n<!-- chatls:compacted %s messages into ctx.archive-1.chat -->\n\n%s\n\n'):format(moved or '?', SUMMARY)
    .. (archive and before:sub(#archive + 1) or '')
  check('context: the buffer is the compacted line, the summary, and the kept turns', moved ~= nil and after == want,
    show(after) .. '\nwant:' .. show(want))

  -- One edit: one :undo restores the text.
  vim.cmd('undo')
  check('context: :undo restores the text', text(buf) == before, show(text(buf)))
  local back = vim.wait(LONG, function()
    return context_warning(buf) ~= nil
  end, 20)
  check('context: after the undo the warning is back', back, vim.inspect(vim.diagnostic.get(buf)))
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  check('the test script ran to its end', false, err)
end
t.finish()
