-- Unit test of chatls.doc (pure text helpers); needs no server.
-- nvim --headless -u NONE -i NONE -n -c 'luafile doc_test.lua'  (CHATLS_PLUGIN set)
vim.opt.runtimepath:prepend(assert(os.getenv('CHATLS_PLUGIN')))
local doc = require('chatls.doc')

local passed, failed = 0, 0
local function eq(name, got, want)
  if vim.deep_equal(got, want) then
    passed = passed + 1
  else
    failed = failed + 1
    io.stdout:write(('FAIL %s: got %s, want %s\n'):format(name, vim.inspect(got), vim.inspect(want)))
  end
end

local lines = vim.split(table.concat({
  '@Assistant:', --                                 0
  '**Tool Use:** `bash` (`toolu_1`)', --            1
  '', --                                            2
  '```json', --                                     3
  '{"command":"ls"}', --                            4
  '```', --                                         5
  '**Tool Use:** `srv:grep` (`toolu_2`)', --        6
  '```json', --                                     7
  '{"pattern":"**Tool Use:** `x` (`fake`)"}', --    8
  '```', --                                         9
  '@You:', --                                      10
  '**Tool Result:** `toolu_1`', --                 11
  '', --                                           12
  '```flemma:tool status=pending', --              13
  '```', --                                        14
  '**Tool Result:** `toolu_2` (approved)', --      15
  '````', --                                       16
  '```', --                                        17
  '**Tool Result:** `toolu_x`', --                 18
  '````', --                                       19
  '**Tool Result:** `toolu_3`', --                 20
  '```flemma:pending', --                          21
  '```', --                                        22
}, '\n'), '\n', { plain = true })

eq('id on use header', doc.tool_id_at(lines, 1), 'toolu_1')
eq('id inside use json', doc.tool_id_at(lines, 4), 'toolu_1')
eq('header-like text inside a fence is ignored', doc.tool_id_at(lines, 8), 'toolu_2')
eq('id inside placeholder', doc.tool_id_at(lines, 14), 'toolu_1')
eq('role marker resets', doc.tool_id_at(lines, 0), nil)
eq('id of suffix result', doc.tool_id_at(lines, 16), 'toolu_2')
eq('placeholder of toolu_1', doc.placeholder(lines, 'toolu_1'), { header = 11, opener = 13, closer = 14, len = 3, status = 'pending' })
eq('placeholder of toolu_2 (suffix, 4-tick fence)', doc.placeholder(lines, 'toolu_2'), { header = 15, opener = 16, closer = 19, len = 4, status = 'approved' })
eq('no placeholder for unknown id', doc.placeholder(lines, 'nope'), nil)
eq('counts', doc.counts(lines), { pending = 2, approved = 1 })
eq('header text in a result fence is content', doc.tool_id_at(lines, 18), 'toolu_2')
eq('legacy dialect counted', doc.counts({ '**Tool Result:** `a`', '```flemma:pending', '```' }), { pending = 1, approved = 0 })
eq('finished result not counted', doc.counts({ '**Tool Result:** `a`', '', '```', 'ok', '```' }), { pending = 0, approved = 0 })
eq('pending calls, with their names', doc.pending(lines), {
  { id = 'toolu_1', name = 'bash', header = 11, opener = 13 },
  { id = 'toolu_3', header = 20, opener = 21 },
})
eq('nearest pending below the cursor', doc.nearest_pending(lines, 0).id, 'toolu_1')
eq('nearest pending above the cursor', doc.nearest_pending(lines, 22).id, 'toolu_3')
eq('a tie goes to the call above', doc.nearest_pending(lines, 15.5).id, 'toolu_1')
eq('no pending call', doc.nearest_pending({ '@You:', 'hi' }, 0), nil)

io.stdout:write(('nvim-doc: %d passed, %d failed\n'):format(passed, failed))
vim.cmd(failed == 0 and 'qa!' or 'cq!')
