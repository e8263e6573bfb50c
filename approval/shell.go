package approval

import (
	"fmt"
	"maps"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellCommand is one simple command found in a bash call.
type shellCommand struct {
	// words is the form allow rules must match: transparent wrappers
	// (timeout, env, xargs…) removed, privilege wrappers (sudo, doas) kept.
	words []word
	// denyForms are every form deny rules check: the command as written and
	// each unwrapped layer.
	denyForms [][]word
	// nested commands run inside a substitution, eval or shell string: they
	// only matter for deny rules (the call is never auto-approved anyway).
	nested bool
	// cd is set for cd/pushd: the directory ("" when unknown).
	cd, cdText string
	isCd       bool
	// cwd is where the command runs ("" when unknown) and reads the files
	// its statement redirects from (<): both for the sensitive-path check.
	// unknownRead: one of them is named by a value made at run time.
	cwd         string
	reads       []string
	unknownRead bool
	// readPaths caches what the command's arguments name as paths, for
	// read deny rules (commandReadPaths).
	readPaths     []string
	readUnknown   bool
	readPathsDone bool
	canonCwd      string // cwd resolved (commandSecret), "" until then
}

// writeTarget is a file a command writes, removes or truncates.
type writeTarget struct {
	path   string // joined with the command's directory; "" when unknown
	reason string // why it can't be checked (dynamic, glob, unknown cwd), "" if it can
	via    string // "> redirect", "tee", "rm"… for traces
	nested bool
}

// shellAnalysis is what a bash command does, as far as static analysis can tell.
type shellAnalysis struct {
	commands []shellCommand
	writes   []writeTarget
	// opaque lists why the call can't be auto-approved (substitution, eval,
	// sh -c, variable command names, unparseable…). Deny rules still apply.
	opaque []string
}

// isVarName reports whether s is a plain shell variable name.
func isVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

const (
	maxShellInput = 1 << 20
	maxNesting    = 6
	maxCommands   = 2000
)

// analyzeShell parses cmd as bash and lists its commands and effects. dir is
// where it runs (relative paths join it); home expands ~.
func analyzeShell(cmd, dir, home string) *shellAnalysis {
	a := &shellAnalysis{}
	w := &shellWalker{a: a, home: home, vars: map[string]string{}, touched: map[string]bool{}}
	w.parse(cmd, dir, false, 0)
	return a
}

type shellWalker struct {
	a    *shellAnalysis
	home string
	// vars are the literal values of variables assigned so far in straight-
	// line code ("x=.env; cat $x" reads .env); touched are all variables the
	// command sets in any way. A touched variable without a known value is
	// tainted: its value is made at run time by this command.
	vars    map[string]string
	touched map[string]bool
	// createdPaths are paths commands put in place (created).
	createdPaths []string
	alts         int // readings of ambiguous commands checked so far
	// wrapDepth is how many simple commands are being analysed inside each
	// other (wrappers, find -exec).
	wrapDepth int
}

// scope is the state the walker threads through a statement list.
type scope struct {
	cwd    string // "" when unknown (cd $X, cd -)
	nested bool
	depth  int
	// stdinCode is here-doc/here-string text fed to this statement (a shell
	// reading it runs it).
	stdinCode []string
	// reads are files the statement's input redirections (<) read;
	// unknownRead says one reads a file named at run time.
	reads       []string
	unknownRead bool
	// cdUnsure: a cd just ran whose directory did not exist when checked;
	// if it fails, the next statement after ; runs in the old directory.
	cdUnsure bool
}

func (w *shellWalker) opaque(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, o := range w.a.opaque {
		if o == msg {
			return
		}
	}
	w.a.opaque = append(w.a.opaque, msg)
}

func (w *shellWalker) parse(src, dir string, nested bool, depth int) {
	if len(src) > maxShellInput {
		w.opaque("command is too long to analyse")
		return
	}
	if depth > maxNesting {
		w.opaque("shell code nested too deeply to analyse")
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		w.opaque("the command does not parse as shell (%v)", err)
		return
	}
	sc := &scope{cwd: dir, nested: nested, depth: depth}
	w.stmts(f.Stmts, sc)
}

func (w *shellWalker) stmts(list []*syntax.Stmt, sc *scope) {
	for _, s := range list {
		w.stmt(s, sc)
		if sc.cdUnsure {
			sc.cwd, sc.cdUnsure = "", false
		}
	}
}

func (w *shellWalker) stmt(s *syntax.Stmt, sc *scope) {
	if len(w.a.commands) > maxCommands {
		w.opaque("too many commands to analyse")
		return
	}
	inner := *sc
	inner.stdinCode = nil
	inner.reads = sc.reads[:len(sc.reads):len(sc.reads)]
	for _, r := range s.Redirs {
		w.redirect(r, &inner)
	}
	if s.Background || s.Coprocess || s.Disown {
		// Runs in a subshell: a cd inside does not carry over.
		bg := inner
		w.command(s.Cmd, &bg)
		return
	}
	w.command(s.Cmd, &inner)
	sc.cwd, sc.cdUnsure = inner.cwd, inner.cdUnsure
}

func (w *shellWalker) redirect(r *syntax.Redirect, sc *scope) {
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
		// {NAME}>file stores the descriptor number in NAME ({PATH}>x sets PATH).
		name := strings.TrimSuffix(strings.TrimPrefix(r.N.Value, "{"), "}")
		w.varNameArg(word{text: name, lead: len(name)}, "a {NAME} redirection", true)
	}
	if r.Word != nil {
		w.scanWord(r.Word, sc)
	}
	target := word{}
	if r.Word != nil {
		target = w.resolveIn(r.Word)
	}
	if r.Hdoc != nil {
		w.scanWord(r.Hdoc, sc)
		if t := resolveWord(r.Hdoc); !t.dyn {
			sc.stdinCode = append(sc.stdinCode, t.text)
		} else {
			sc.stdinCode = append(sc.stdinCode, "")
		}
	}
	switch r.Op {
	case syntax.RdrIn, syntax.RdrInOut:
		if r.Word != nil {
			if t := target; !t.dyn {
				if p, ok := w.joinPath(sc.cwd, t.text); ok {
					sc.reads = append(sc.reads, p)
				}
			} else if t.tainted {
				sc.unknownRead = true
			}
		}
	}
	switch r.Op {
	case syntax.WordHdoc:
		if r.Word != nil {
			t := resolveWord(r.Word)
			sc.stdinCode = append(sc.stdinCode, t.text)
		}
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob,
		syntax.AppClob, syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut, syntax.DplOut:
		if r.Word == nil {
			return
		}
		t := target
		if r.Op == syntax.DplOut && !t.dyn && (t.text == "-" || isDigits(t.text)) {
			return // 2>&1, >&-: duplicates a descriptor, writes no file
		}
		w.write(t, sc, r.Op.String()+" redirect")
	}
}

// write records a write target relative to the scope's directory.
func (w *shellWalker) write(t word, sc *scope, via string) {
	wt := writeTarget{via: via, nested: sc.nested}
	switch {
	case t.dyn:
		wt.reason = "the target is not a literal path"
	case t.glob:
		wt.reason = "the target is a glob pattern"
	case harmlessDevice(t.text):
		return
	default:
		p, ok := w.joinPath(sc.cwd, t.text)
		if !ok {
			wt.reason = "the target is relative to a directory the command changed to at run time"
		}
		wt.path = p
		if by := w.createdBy(p); by != "" && wt.reason == "" {
			wt.reason = "the target may be a symlink that " + by + " put in place earlier in this command"
		}
	}
	w.a.writes = append(w.a.writes, wt)
}

// created records a path a command puts in place (cp, ln, mv, install,
// tar -x): it may be a symlink, so later writes through it are not checked
// against where they seem to go. An unknown path makes every later write
// unknown.
func (w *shellWalker) created(t word, sc *scope) {
	p, ok := w.joinPath(sc.cwd, t.text)
	if t.dyn || t.glob || !ok {
		p = "/"
	}
	w.createdPaths = append(w.createdPaths, path.Clean(p))
}

// createdBy says whether p is, or is inside, a path put in place earlier.
func (w *shellWalker) createdBy(p string) string {
	p = path.Clean(p)
	for _, c := range w.createdPaths {
		if p == c || c == "/" || strings.HasPrefix(p, c+"/") {
			return "a copy, move or link"
		}
	}
	return ""
}

// harmlessDevice: only these exact names write no file. Anything else under
// /dev is resolved like any path: /dev/stdout/.. is a directory, and
// /dev/fd/N is whatever descriptor N is in bash (procPath: it asks).
func harmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/full":
		return true
	}
	return false
}

// joinPath makes p absolute against cwd, expanding ~; ok is false when cwd
// is unknown and p is relative.
// The result is not cleaned: "l/.." must be resolved after the link l.
func (w *shellWalker) joinPath(cwd, p string) (string, bool) {
	switch {
	case p == "~":
		return w.home, true
	case strings.HasPrefix(p, "~/"):
		return strings.TrimSuffix(w.home, "/") + "/" + p[2:], true
	case path.IsAbs(p):
		return p, true
	case cwd == "":
		return "", false
	}
	return strings.TrimSuffix(cwd, "/") + "/" + p, true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (w *shellWalker) command(cmd syntax.Command, sc *scope) {
	start := sc.cwd
	// conditional runs a part that may or may not run: a cd inside leaves the
	// directory unknown afterwards.
	conditional := func(f func(*scope)) {
		inner := *sc
		before := maps.Clone(w.vars)
		f(&inner)
		if inner.cwd != start {
			sc.cwd = ""
		}
		for name, v := range w.vars {
			if old, ok := before[name]; !ok || old != v {
				delete(w.vars, name) // assigned in a part that may not run
			}
		}
	}
	// isolated runs in a subshell: nothing carries over.
	isolated := func(f func(*scope)) {
		inner := *sc
		before := maps.Clone(w.vars)
		f(&inner)
		w.vars = before
	}
	switch c := cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		w.call(c, sc)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			isolated(func(s *scope) { w.stmt(c.X, s) })
			isolated(func(s *scope) { w.stmt(c.Y, s) })
		default: // && ||: the right side may not run
			conditional(func(s *scope) {
				w.stmt(c.X, s)
				if s.cdUnsure && c.Op == syntax.OrStmt {
					s.cwd = "" // the right side runs when the cd failed
				}
				s.cdUnsure = false
				w.stmt(c.Y, s)
			})
		}
	case *syntax.Subshell:
		isolated(func(s *scope) { w.stmts(c.Stmts, s) })
	case *syntax.Block:
		w.stmts(c.Stmts, sc)
	case *syntax.IfClause:
		conditional(func(s *scope) {
			for cl := c; cl != nil; cl = cl.Else {
				w.stmts(cl.Cond, s)
				w.stmts(cl.Then, s)
			}
		})
	case *syntax.WhileClause:
		conditional(func(s *scope) {
			w.stmts(c.Cond, s)
			w.stmts(c.Do, s)
		})
	case *syntax.ForClause:
		conditional(func(s *scope) {
			switch l := c.Loop.(type) {
			case *syntax.WordIter:
				if l.Name != nil {
					w.setsVariable(l.Name.Value)
				}
				var items []word
				for _, it := range l.Items {
					w.scanWord(it, s)
					items = append(items, w.expandBraces(it)...)
				}
				if l.Name != nil && w.forEachLiteral(l.Name.Value, items, func() { w.stmts(c.Do, s) }) {
					return
				}
			case *syntax.CStyleLoop:
				w.arithm(l, s)
			}
			w.stmts(c.Do, s)
		})
	case *syntax.CaseClause:
		w.scanWord(c.Word, sc)
		conditional(func(s *scope) {
			for _, it := range c.Items {
				for _, p := range it.Patterns {
					w.scanWord(p, s)
				}
				w.stmts(it.Stmts, s)
			}
		})
	case *syntax.FuncDecl:
		// The body runs whenever the function is called: analyse it as if it ran.
		conditional(func(s *scope) { w.stmt(c.Body, s) })
	case *syntax.ArithmCmd:
		w.arithm(c, sc)
	case *syntax.LetClause:
		w.arithm(c, sc)
	case *syntax.TestClause:
		w.test(c.X, sc)
	case *syntax.DeclClause:
		w.decl(c, sc)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			w.stmt(c.Stmt, sc)
		}
	case *syntax.CoprocClause:
		if c.Name != nil {
			if n := resolveWord(c.Name); n.dyn {
				w.opaque("coproc gets a name known only at run time")
			} else {
				w.setsVariable(n.text)
			}
		}
		isolated(func(s *scope) { w.stmt(c.Stmt, s) })
	default:
		w.opaque("unsupported shell construct %T", cmd)
	}
}

// scanWord finds substitutions and arithmetic inside a word.
func (w *shellWalker) scanWord(word *syntax.Word, sc *scope) {
	if word == nil {
		return
	}
	syntax.Walk(word, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			w.opaque("command substitution $(…) is never auto-approved")
			w.nestedStmts(n.Stmts, sc)
			return false
		case *syntax.ProcSubst:
			w.opaque("process substitution <(…) is never auto-approved")
			w.nestedStmts(n.Stmts, sc)
			return false
		case *syntax.ArithmExp:
			w.arithm(n, sc)
			return false
		case *syntax.ParamExp:
			w.paramExp(n, sc)
		}
		return true
	})
}

// paramExp flags expansions that evaluate a variable's text: subscripts and
// slices (arithmetic), ${!x} (the value is a name, and a[$(cmd)] in it runs
// cmd), ${x@P} (prompt expansion runs $(…) in the value), and ${X:=v},
// which assigns.
func (w *shellWalker) paramExp(n *syntax.ParamExp, sc *scope) {
	if n.Index != nil || n.Slice != nil {
		w.arithm(n, sc)
	}
	if n.Excl && n.Names == 0 && n.Index == nil {
		w.opaque("indirect expansion ${!…} reads a variable's text as a name; a[$(cmd)] in it runs cmd")
	}
	if n.Exp == nil || n.Param == nil {
		return
	}
	switch n.Exp.Op {
	case syntax.OtherParamOps:
		if t := resolveWord(orEmpty(n.Exp.Word)); t.dyn || !strings.ContainsAny(t.text, "QEUuLaAKk") || len(t.text) != 1 {
			w.opaque("${…@%s} may expand the value as a prompt, which runs $(…) in it", t.text)
		}
	case syntax.AssignUnset, syntax.AssignUnsetOrNull:
		w.setsVariable(n.Param.Value)
		if arithmeticOnAssign(n.Param.Value) {
			w.opaque("assigning to %s evaluates the value as arithmetic", n.Param.Value)
		}
	}
}

func (w *shellWalker) nestedStmts(list []*syntax.Stmt, sc *scope) {
	inner := *sc
	inner.nested = true
	inner.depth++
	if inner.depth > maxNesting {
		w.opaque("shell code nested too deeply to analyse")
		return
	}
	w.stmts(list, &inner)
}

// arithm flags arithmetic that reads variables: bash evaluates a
// variable's text as an expression, and a[$(cmd)] in that text runs cmd.
func (w *shellWalker) arithm(n syntax.Node, sc *scope) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			w.opaque("command substitution $(…) is never auto-approved")
			w.nestedStmts(n.Stmts, sc)
			return false
		case *syntax.ProcSubst:
			w.opaque("process substitution <(…) is never auto-approved")
			w.nestedStmts(n.Stmts, sc)
			return false
		case *syntax.ParamExp:
			w.opaque("arithmetic on variables can run commands through array subscripts")
		case *syntax.Lit:
			if n.Value != "" && !isNumberLit(n.Value) {
				w.opaque("arithmetic on variables can run commands through array subscripts")
			}
		}
		return true
	})
}

func isNumberLit(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c == '#' || c == 'x' || c == 'X' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s[0] >= '0' && s[0] <= '9'
}

func (w *shellWalker) test(x syntax.TestExpr, sc *scope) {
	switch t := x.(type) {
	case *syntax.Word:
		w.scanWord(t, sc)
	case *syntax.UnaryTest:
		w.test(t.X, sc)
		if t.Op == syntax.TsVarSet || t.Op == syntax.TsRefVar {
			if wd, ok := t.X.(*syntax.Word); ok {
				w.varNameArg(resolveWord(wd), "[[ "+t.Op.String()+" ]]", false)
			}
		}
	case *syntax.ParenTest:
		w.test(t.X, sc)
	case *syntax.BinaryTest:
		w.test(t.X, sc)
		w.test(t.Y, sc)
		switch t.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			// [[ X -eq Y ]] evaluates both sides as arithmetic.
			for _, side := range []syntax.TestExpr{t.X, t.Y} {
				if wd, ok := side.(*syntax.Word); ok {
					if r := resolveWord(wd); r.dyn || !isNumberLit(r.text) {
						w.opaque("arithmetic on variables can run commands through array subscripts")
					}
				}
			}
		}
	}
}

func (w *shellWalker) decl(c *syntax.DeclClause, sc *scope) {
	variant := ""
	if c.Variant != nil {
		variant = c.Variant.Value
	}
	if variant == "nameref" {
		w.opaque("nameref makes a name reference: reading it evaluates the referenced name")
	}
	unexport := false // export -n NAME takes NAME out of the environment
	for _, as := range c.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			// An option, or a NAME=VALUE written with quotes or expansions.
			w.scanWord(as.Value, sc)
			v := resolveWord(as.Value)
			if !v.dyn && isPlainLit(as.Value) && (strings.HasPrefix(v.text, "-") || strings.HasPrefix(v.text, "+")) {
				w.declFlags(variant, v.text)
				unexport = unexport || strings.HasPrefix(v.text, "-") && strings.Contains(v.text, "n")
				continue
			}
			w.opaque("%s gets a variable name that is quoted or known only at run time (%q): never auto-approved", variant, displayWord(v))
			continue
		}
		if variant == "export" && as.Name != nil && !unexport && (as.Value != nil || as.Index != nil || !as.Naked || w.touched[as.Name.Value]) {
			// export NAME of a variable this command did not set adds nothing.
			w.environment(as.Name.Value, "with export")
		}
		if as.Naked && as.Name != nil && as.Value == nil && as.Index == nil && variant != "export" && variant != "readonly" {
			// local PATH (declare PATH in a function) makes an unset local:
			// with PATH unset, bash looks for commands in the current directory.
			w.setsVariable(as.Name.Value)
		}
		w.assign(as, sc)
	}
	w.a.commands = append(w.a.commands, shellCommand{
		words:       []word{{text: variant, lead: len(variant)}},
		denyForms:   [][]word{{{text: variant, lead: len(variant)}}},
		nested:      sc.nested,
		cwd:         sc.cwd,
		reads:       sc.reads,
		unknownRead: sc.unknownRead,
	})
}

func isPlainLit(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	_, ok := w.Parts[0].(*syntax.Lit)
	return ok
}

// declFlags checks declare/local/export/readonly options: only attributes
// that don't change how values are evaluated are known to be harmless.
func (w *shellWalker) declFlags(variant, flags string) {
	allowed := "aAglprtux"
	switch variant {
	case "export":
		allowed = "np"
	case "readonly":
		allowed = "aAp"
	}
	if flags == "-" || flags == "--" {
		return // local - (saves shell options), end of options
	}
	for _, c := range flags[1:] {
		switch {
		case c == 'i':
			w.opaque("%s %s gives variables the integer attribute: later values are evaluated as arithmetic, which runs a[$(cmd)] in them", variant, flags)
		case c == 'n':
			if variant != "export" {
				w.opaque("%s %s makes a name reference: reading it evaluates the referenced name", variant, flags)
			}
		case c == 'f' || c == 'F':
			w.opaque("%s %s defines or exports functions", variant, flags)
		case !strings.ContainsRune(allowed, c):
			w.opaque("%s has the option %s, which chatls does not know to be harmless", variant, flags)
		}
	}
}

// assign checks an assignment's name and value.
func (w *shellWalker) assign(as *syntax.Assign, sc *scope) {
	if as.Name != nil {
		if as.Naked && as.Value == nil && as.Index == nil {
			// export NAME, local NAME: no new value.
			if arithmeticOnAssign(as.Name.Value) {
				w.opaque("%s is evaluated as arithmetic", as.Name.Value)
			}
		} else {
			w.setsVariable(as.Name.Value)
			if arithmeticOnAssign(as.Name.Value) {
				if v := resolveWord(orEmpty(as.Value)); v.dyn || !isNumberLit(v.text) {
					w.opaque("assigning to %s evaluates the value as arithmetic", as.Name.Value)
				}
			}
		}
	}
	if as.Index != nil {
		w.arithm(as.Index, sc)
	}
	w.scanWord(as.Value, sc)
	if as.Value != nil {
		if v := resolveWord(as.Value); strings.Contains(v.text, "[") && strings.ContainsAny(v.text, "$`") {
			w.opaque("a value with a subscript and $ can run commands when evaluated")
		}
	}
	if as.Array != nil {
		for _, el := range as.Array.Elems {
			if el.Index != nil {
				w.arithm(el.Index, sc)
			}
			w.scanWord(el.Value, sc)
		}
	}
}

func orEmpty(w *syntax.Word) *syntax.Word {
	if w == nil {
		return &syntax.Word{}
	}
	return w
}

// setsVariable flags assignments to variables that change what later
// commands do.
func (w *shellWalker) setsVariable(name string) {
	w.touched[name] = true
	delete(w.vars, name)
	if why := dangerousVariable(name); why != "" {
		w.opaque("setting %s %s", name, why)
	}
}

// arithmeticOnAssign names bash variables whose assignments are evaluated
// as arithmetic (RANDOM=$x runs a[$(cmd)] found in $x).
func arithmeticOnAssign(name string) bool {
	switch name {
	case "RANDOM", "SRANDOM", "OPTIND", "HISTCMD":
		return true
	}
	return false
}

// varNameArg checks a word a builtin reads as a variable name (read NAME,
// printf -v NAME, unset NAME, test -v NAME…): bash evaluates a subscript in
// it, so it must be a plain name or NAME[number]. assigns: the builtin sets it.
func (w *shellWalker) varNameArg(a word, via string, assigns bool) {
	if a.dyn {
		w.opaque("%s gets a variable name known only at run time; a[$(cmd)] in it runs cmd", via)
		return
	}
	name := a.text
	if i := strings.IndexByte(name, '['); i > 0 && strings.HasSuffix(name, "]") && isDigits(name[i+1:len(name)-1]) {
		name = name[:i]
	}
	if !isVarName(name) {
		w.opaque("%s gets %q, which is not a plain variable name; a subscript in it is evaluated and can run commands", via, a.text)
		return
	}
	if assigns {
		w.setsVariable(name)
		if arithmeticOnAssign(name) {
			w.opaque("%s sets %s, whose values are evaluated as arithmetic", via, name)
		}
	}
}

// environment checks a variable put in the environment of the programs a
// command runs (X=1 cmd, env X=1 cmd, export X): any variable may make a
// program run another (GOCACHEPROG, EXECIGNORE, GIT_*, a tool's own
// *_COMMAND…), so only the ones known to be harmless pass; every other
// asks. A plain shell assignment (x=1 alone) is checked by
// dangerousVariable only: it reaches no program.
func (w *shellWalker) environment(name, how string) {
	if harmlessEnv(name) {
		return
	}
	w.opaque("%s %s puts it in the environment of the programs that run; chatls knows only some variables to be harmless there (LANG, LC_*, TZ, NO_COLOR, GOOS…)", name, how)
}

// harmlessEnv are environment variables no program execs or reads a file
// by: locale, time zone, terminal and colour, CI markers, Go's target and
// runtime knobs, log levels.
func harmlessEnv(name string) bool {
	u := strings.ToUpper(name)
	if strings.HasPrefix(u, "LC_") {
		return true
	}
	switch u {
	case "LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE",
		"COLUMNS", "LINES", "CI", "DEBUG", "VERBOSE", "V", "QUIET", "SOURCE_DATE_EPOCH", "USER", "LOGNAME",
		"GOOS", "GOARCH", "GOARM", "GOAMD64", "GO386", "GOARM64", "GOWASM", "CGO_ENABLED", "GOMAXPROCS", "GOGC",
		"GOMEMLIMIT", "GOTRACEBACK", "GO111MODULE", "GOCOVERDIR", "RUST_LOG", "RUST_BACKTRACE", "RUST_LIB_BACKTRACE",
		"NODE_ENV", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONIOENCODING",
		"PYTHONUTF8", "LOG_LEVEL", "LOGLEVEL", "NPROC", "JOBS", "TIMEFORMAT":
		return true
	}
	return false
}

// dangerousVariable names variables that change which program runs, what
// it executes or reads as configuration, or how the shell itself behaves;
// setting them makes an allowed command run something else.
func dangerousVariable(name string) string {
	u := strings.ToUpper(name)
	switch {
	case u == "PATH" || strings.HasSuffix(u, "PATH") && u != "GOPATH":
		return "changes where programs and libraries are found"
	case strings.HasPrefix(u, "LD_") || strings.HasPrefix(u, "DYLD_") || u == "GLIBC_TUNABLES":
		return "injects libraries into every program"
	case strings.HasPrefix(u, "BASH") || u == "ENV" || u == "IFS" || strings.HasPrefix(u, "SHELL") ||
		u == "PS4" || u == "PROMPT_COMMAND" || u == "CDPATH" || u == "HOME" || u == "ZDOTDIR" ||
		u == "GLOBIGNORE" || u == "POSIXLY_CORRECT" || u == "PWD" || u == "OLDPWD":
		return "changes how the shell itself or option parsing behaves"
	case strings.HasPrefix(u, "GIT_") || strings.HasSuffix(u, "_COMMAND") || strings.Contains(u, "EDITOR") ||
		u == "VISUAL" || strings.Contains(u, "PAGER") || u == "BROWSER" || strings.Contains(u, "ASKPASS") ||
		strings.HasPrefix(u, "LESS"):
		return "makes tools run another program"
	case strings.HasPrefix(u, "XDG_") || strings.HasSuffix(u, "_HOME") || strings.Contains(u, "CONFIG") ||
		strings.HasSuffix(u, "RC") && !strings.HasSuffix(u, "SRC") || strings.HasSuffix(u, "INIT") ||
		strings.HasSuffix(u, "LOGFILE") || strings.HasPrefix(u, "MAKE"):
		return "changes which configuration or files tools read and write"
	case strings.Contains(u, "FLAGS") || strings.Contains(u, "OPTIONS") || strings.HasSuffix(u, "OPT") ||
		strings.HasSuffix(u, "OPTS") || strings.HasPrefix(u, "PYTHON") || strings.HasPrefix(u, "PERL") ||
		strings.HasPrefix(u, "NODE_") || strings.HasPrefix(u, "RUBY") || strings.HasPrefix(u, "LUA") ||
		strings.HasPrefix(u, "RUSTC") || strings.HasPrefix(u, "CARGO_") || u == "CC" || u == "CXX" ||
		u == "LD" || u == "AR" || u == "GOTOOLCHAIN" || u == "GOENV" || u == "GOPROXY" || u == "GOROOT" ||
		u == "GOTOOLDIR" || u == "GOEXPERIMENT" || strings.HasPrefix(u, "PKG_CONFIG"):
		return "changes what compilers and interpreters execute"
	}
	return ""
}
