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
  function t.finish()
    t.out(('%s: %d passed, %d failed'):format(name, t.passed, t.failed))
    vim.cmd(t.failed == 0 and 'qa!' or 'cq!')
  end
  return t
end
