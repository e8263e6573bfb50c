" *.chat is a Flemma-style conversation; chatls serves it as language id `chat`.
autocmd BufRead,BufNewFile *.chat setfiletype chat
