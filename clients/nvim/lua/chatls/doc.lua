-- Pure text helpers over a buffer's lines (no LSP): which tool call the cursor
-- is in, where its placeholder is, and how many placeholders wait. Kept
-- independent of the server so the keymaps know the tool ID even before the
-- server has answered, and the statusline works in any state.
local M = {}

local STATUS_ALIASES = { reject = 'rejected', deny = 'denied' }

-- Fence tracking as in SPEC §1: an opener is 3+ backticks at column 0 with no
-- other backtick on the line; a closer is backticks only, at least as long.
local function fence_opener(line)
  local ticks, rest = line:match('^(```+)(.*)$')
  if ticks and not rest:find('`', 1, true) then
    return #ticks, rest
  end
end

local function fence_closer(line, len)
  local ticks = line:match('^(```+)%s*$')
  return ticks ~= nil and #ticks >= len
end

-- iter calls fn(row, line, in_fence) for each line; row is 0-based.
local function each_line(lines, fn)
  local open
  for i, line in ipairs(lines) do
    local row = i - 1
    if open then
      if fence_closer(line, open) then
        open = nil
      end
      fn(row, line, true)
    else
      local len = fence_opener(line)
      fn(row, line, false)
      if len then
        open = len
      end
    end
  end
end

local function use_header(line)
  local name, id = line:match('^%*%*Tool Use:%*%*%s*`([^`]+)`%s*%(`([^`]+)`%)')
  return name, id
end

local function result_header(line)
  local id, suffix = line:match('^%*%*Tool Result:%*%*%s*`([^`]+)`%s*(.*)$')
  return id, suffix
end

local function suffix_status(suffix)
  local s = suffix and (suffix:match('^%(status=(%w+)') or suffix:match('^%((%w+)%)'))
  return s and (STATUS_ALIASES[s] or s)
end

local function fence_status(info)
  local s = info:match('^flemma:tool.-status=(%w+)') or info:match('^flemma:(%w+)%s*$')
  if s == 'tool' then
    return nil
  end
  return s and (STATUS_ALIASES[s] or s)
end

-- tool_id_at returns the ID of the tool call whose use or result block holds
-- row (0-based): the nearest header above, not crossing a role marker.
function M.tool_id_at(lines, row)
  local headers = {}
  each_line(lines, function(r, line, in_fence)
    if r > row or in_fence then
      return
    end
    if line:match('^@%w+:%s*$') then
      headers = {}
    end
    local _, uid = use_header(line)
    local rid = result_header(line)
    if uid or rid then
      headers[#headers + 1] = uid or rid
    end
  end)
  return headers[#headers]
end

-- placeholder returns {header=, opener=, closer=, status=} (0-based rows) for
-- the result block of id, or nil when the call has no result block yet.
function M.placeholder(lines, id)
  local found
  local header
  each_line(lines, function(row, line, in_fence)
    if found then
      return
    end
    if header then
      if not in_fence and line:match('^%s*$') then
        return
      end
      local len, info = fence_opener(line)
      if len and header.opener == nil then
        header.opener, header.len = row, len
        header.status = header.status or fence_status(info)
      elseif header.opener and fence_closer(line, header.len) then
        header.closer = row
        found = header
      elseif not header.opener then
        header = nil -- a header with no fence: not a result block
      end
      return
    end
    local rid, suffix = result_header(line)
    if not in_fence and rid == id then
      header = { header = row, status = suffix_status(suffix) }
    end
  end)
  return found or (header and header.opener and header) or nil
end

-- pending returns the calls whose placeholder waits for approval, in
-- buffer order: { {id=, name=, header=, opener=}, ... } (0-based rows; name
-- from the call's **Tool Use:** header, nil when it has none).
function M.pending(lines)
  local names, out = {}, {}
  local header -- {id=, row=, status=} of a result header waiting for its fence
  each_line(lines, function(row, line, in_fence)
    if in_fence then
      return
    end
    local name, uid = use_header(line)
    if uid then
      names[uid] = name
    end
    local rid, suffix = result_header(line)
    if rid then
      header = { id = rid, row = row, status = suffix_status(suffix) }
      return
    end
    if header and not line:match('^%s*$') then
      local _, info = fence_opener(line)
      if (header.status or (info and fence_status(info))) == 'pending' then
        out[#out + 1] = { id = header.id, header = header.row, opener = info and row or nil }
      end
      header = nil
    end
  end)
  for _, p in ipairs(out) do
    p.name = names[p.id]
  end
  return out
end

-- nearest_pending returns the pending call closest to row (a call above
-- wins a tie), or nil when none waits.
function M.nearest_pending(lines, row)
  local best, dist
  for _, p in ipairs(M.pending(lines)) do
    local d = math.abs(p.header - row)
    if not best or d < dist then
      best, dist = p, d
    end
  end
  return best
end

-- counts returns the number of placeholders by status, e.g. {pending=1}.
-- An `approved` placeholder is one that is queued or running.
function M.counts(lines)
  local counts = { pending = 0, approved = 0 }
  local pending_header -- status from a header suffix waits for the fence
  each_line(lines, function(_, line, in_fence)
    if in_fence then
      return
    end
    local rid, suffix = result_header(line)
    if rid then
      pending_header = { status = suffix_status(suffix) }
      return
    end
    if pending_header and not line:match('^%s*$') then
      local _, info = fence_opener(line)
      local status = pending_header.status or (info and fence_status(info))
      if status then
        counts[status] = (counts[status] or 0) + 1
      end
      pending_header = nil
    end
  end)
  return counts
end

return M
