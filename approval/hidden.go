package approval

// ReadDenied says whether a deny rule forbids reading the canonical path p
// (read(private/**), ls(secrets), or any other read-effect rule): the tools
// that walk a directory above such a path (grep, find, ls) skip it, so a
// search of the workspace never shows what the user denied (SPEC §4: path
// rules apply to every tool by its effect).
func (e *Engine) ReadDenied(p string) bool {
	for i := range e.rules.deny {
		r := e.rules.deny[i].rule
		if r.path != nil && r.sameEffect("read") && r.path.match(p, e.root) {
			return true
		}
	}
	return false
}

// Hidden says whether the tools walking a directory (grep, find, ls) skip
// the canonical path p: a read deny rule covers it (ReadDenied), or it is a
// sensitive path (.env, credentials.json, .ssh/…) that no trusted rule of a
// reading tool names (grep(.env), read(config/credentials.json)). A search
// of the workspace approved by $standard so never returns a secret.
func (e *Engine) Hidden(p string) bool {
	if e.ReadDenied(p) {
		return true
	}
	t := e.sensitive(p)
	if t == "" {
		return false
	}
	for i := range e.rules.approve {
		en := &e.rules.approve[i]
		r := en.rule
		if en.origin.trusted && r.path != nil && r.sameEffect("read") && r.path.match(p, e.root) && r.path.names(t) {
			return false
		}
	}
	return true
}
