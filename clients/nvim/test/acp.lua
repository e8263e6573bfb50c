-- Headless Neovim: a conversation with an external agent over ACP (SPEC §12)
-- with the real server, as a user holds it (run by clients/nvim/test/run.sh).
-- The provider is the scripted agent on the official ACP SDK
-- (acp/testdata/agent), configured in the trusted user settings. Turn 1:
-- the agent asks to read a file; its Tool Use and a pending placeholder
-- stream into the buffer while it waits; the user approves by editing the
-- placeholder in the buffer (status=pending → status=approved); the result
-- and the agent's answer follow. Turn 2: the next question goes to the
-- same agent session and is answered. Every wait watches a condition with
-- a timeout.
local BIN = assert(os.getenv('CHATLS_BIN'), 'CHATLS_BIN')
local WS = assert(os.getenv('CHATLS_WS'), 'CHATLS_WS')
local PLUGIN = assert(os.getenv('CHATLS_PLUGIN'), 'CHATLS_PLUGIN')
local AGENT_LOG = assert(os.getenv('CHATLS_ACP_LOG'), 'CHATLS_ACP_LOG') -- the agent's session requests
local LOG = os.getenv('CHATLS_LOG') or (WS .. '/../chatls.log')
local LONG = 60000 -- a busy 2-core machine; node starts the agent in about a second

local HERE = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h')
local t = dofile(HERE .. '/harness.lua')('nvim acp')
local out, check = t.out, t.check
local read, text, show, press = t.read, t.text, t.show, t.press

local chatls = t.load_plugin(PLUGIN)
chatls.setup({ cmd = { BIN, '--log-file', LOG } })



local function has(buf, s)
  return text(buf):find(s, 1, true) ~= nil
end

-- requests is the agent's log: { {method, session}, … }.
local function requests()
  local r = {}
  for line in (read(AGENT_LOG) or ''):gmatch('[^\n]+') do
    local method, session = line:match('^(%S+) (%S+)')
    r[#r + 1] = { method, session }
  end
  return r
end

local function main()
  local notes = WS .. '/notes.txt'
  local f = assert(io.open(notes, 'wb'))
  f:write('first line\nsecond\nthird\n')
  f:close()
  local path = WS .. '/agent.chat'
  f = assert(io.open(path, 'wb'))
  f:write('@You:\nread ' .. notes .. '\n')
  f:close()
  vim.cmd('edit ' .. path)
  local buf = vim.api.nvim_get_current_buf()
  local attached = vim.wait(LONG, function()
    local c = require('chatls.lsp').client(buf)
    return c ~= nil and c.initialized and chatls.statusline(buf) ~= 'chatls: starting'
  end, 20)
  if not check('acp: server attached, status pushed', attached, chatls.statusline(buf)) then
    return
  end

  -- Turn 1: <C-]> sends; the agent's read waits for the user's permission.
  vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buf), 0 })
  press('<C-]>')
  local use = '**Tool Use:** `read` (`toolu_read_1`)\n```json\n{"path":"' .. notes .. '","limit":2}\n```\n'
  local pending = '**Tool Result:** `toolu_read_1`\n```flemma:tool status=pending\n```\n'
  local asked = vim.wait(LONG, function()
    return has(buf, use) and has(buf, pending)
  end, 20)
  check('acp: the Tool Use and a pending placeholder stream in while the agent waits (compact headers)', asked, show(text(buf)))
  if not asked then
    return
  end
  check('acp: nothing of the answer after the permission yet', not has(buf, 'The file starts with'), show(text(buf)))

  -- The user approves by editing the placeholder in the buffer.
  local row
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if l == '```flemma:tool status=pending' then
      row = i
    end
  end
  vim.api.nvim_win_set_cursor(0, { row, 0 })
  press(':s/status=pending/status=approved/<CR>')
  local result = '**Tool Result:** `toolu_read_1`\n```\nfirst line\nsecond\n```\n'
  local answered = vim.wait(LONG, function()
    return has(buf, result) and has(buf, 'The file starts with "first line" (allow).\n\n@You:\n')
  end, 20)
  check("acp: approved in the buffer: the read's result and the agent's answer (allow once)", answered, show(text(buf)))
  if not answered then
    return
  end
  local want1 = '@You:\nread ' .. notes .. '\n\n@Assistant:\n\n' .. use .. '\n@You:\n\n' .. result
    .. '\n@Assistant:\nThe file starts with "first line" (allow).\n\n@You:\n\n'
  check('acp: the buffer after turn 1', vim.wait(LONG, function()
    return text(buf) == want1
  end, 20), show(text(buf)) .. '\nwant:' .. show(want1))

  -- Turn 2: the next question, typed under the last @You:, is sent once
  -- the first send has ended.
  local idle = vim.wait(LONG, function()
    return chatls.statusline(buf):find('— last answer: agent', 1, true) ~= nil -- shown once the send ended
  end, 20)
  check('acp: the first send ended', idle, chatls.statusline(buf))
  press('Gistream<Esc>')
  press('<C-]>')
  local want2 = want1:sub(1, -2) .. 'stream\n\n@Assistant:\nHello, world.\n @You: not a role\n\n<thinking>\nThe user wants a greeting.\n</thinking>\n\n@You:\n\n'
  local second = vim.wait(LONG, function()
    return text(buf) == want2
  end, 20)
  check('acp: turn 2 answered: its text (a structure line escaped) and thinking', second, show(text(buf)) .. '\nwant:' .. show(want2))

  local r = requests()
  local same = #r == 3 and r[1][1] == 'session/new' and r[2][1] == 'session/prompt' and r[3][1] == 'session/prompt'
    and r[2][2] == r[1][2] and r[3][2] == r[1][2]
  check('acp: both turns went to one agent session', same, vim.inspect(r))
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  check('the test script ran to its end', false, err)
end
t.finish()
