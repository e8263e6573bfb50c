; .chat reuses Helix's markdown grammar (languages.toml: grammar = "markdown").
; inherits: markdown
