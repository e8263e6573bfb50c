-- The checks of a headless Neovim test: PASS/FAIL lines, and a finish that
-- prints the counts and quits with the exit code (:cq on a failure).
--   local t = dofile(HERE .. '/harness.lua')('nvim rewind')
return function(name)
  local t = { passed = 0, failed = 0 }
  function t.out(s)
    io.stdout:write(s .. '\n')
  end
  function t.check(what, ok, detail)
    if ok then
      t.passed = t.passed + 1
      t.out('PASS ' .. what)
    else
      t.failed = t.failed + 1
      t.out('FAIL ' .. what .. (detail and (': ' .. tostring(detail)) or ''))
    end
    return ok
  end
  -- read is a file's bytes, or nil when it does not exist.
  function t.read(path)
    local f = io.open(path, 'rb')
    if not f then
      return nil
    end
    local s = f:read('*a')
    f:close()
    return s
  end
  -- text is buf's lines as the file would hold them.
  function t.text(buf)
    return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
  end
  -- show is s for a FAIL line: its line ends visible.
  function t.show(s)
    return '\n' .. (s or '(nil)'):gsub('\n', '⏎\n')
  end
  -- press types keys as the user does ('t': typed, so that each command
  -- begins a new undo block, as between a user's keys).
  function t.press(keys)
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'xt', false)
  end
  -- load_plugin puts the chatls plugin at PLUGIN on the runtime path as a
  -- user's config does, with notifications printed to the test's output.
  function t.load_plugin(plugin)
    vim.opt.runtimepath:prepend(plugin)
    vim.cmd('filetype plugin on')
    vim.g.maplocalleader = '\\'
    vim.notify = function(msg)
      t.out('  notify: ' .. msg)
    end
    return require('chatls')
  end
  function t.finish()
    t.out(('%s: %d passed, %d failed'):format(name, t.passed, t.failed))
    vim.cmd(t.failed == 0 and 'qa!' or 'cq!')
  end
  return t
end
