-- Buffer options for .chat files. The LSP client itself starts from
-- require('chatls').setup(), so a user who wants only syntax gets only syntax.
vim.bo.commentstring = '<!-- %s -->'
vim.opt_local.wrap = true
vim.opt_local.linebreak = true
vim.b.undo_ftplugin = 'setlocal commentstring< wrap< linebreak<'
