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
