package approval

import "strings"

// The wrappers table says, program by program, how a program runs another
// program or shell code: its option grammar, what its options do to the
// command it runs, and where that command stands. wrapper (shell_call.go)
// reads an entry; a program whose grammar is not data names a function.

// wrapKind says how allow rules see the command a wrapper runs.
type wrapKind uint8

const (
	// wrapTransparent: allow rules match the wrapped command (timeout 5 go test = go test).
	wrapTransparent wrapKind = iota
	// wrapNamed: allow rules must name the wrapper (sudo rm x needs bash(sudo rm *)).
	wrapNamed
	// wrapOpaque: never auto-approved (another root, user or namespace, a
	// tracer, a shell); deny rules still see the wrapped command.
	wrapOpaque
)

// optEffect is what one of a wrapper's options does to the call.
type optEffect uint8

const (
	_ optEffect = iota
	// runsNothing: the wrapper runs no command (chrt -p PID, command -v NAME).
	runsNothing
	// runsShell: the command words are a string a shell runs (sudo -s, -i).
	runsShell
	// editsFiles: the words after the options are files it edits (sudo -e).
	editsFiles
	// newDir: the command runs in a directory chatls does not follow (sudo -D, env -C).
	newDir
	// splitsString: the value is split into words that come before the command (env -S).
	splitsString
	// changesPath: the value changes where programs are found (env -P).
	changesPath
	// writesValue: the value is a file the wrapper writes (time -o).
	writesValue
	// argFile: the value is the file the command's arguments come from,
	// which the command then reads too (xargs -a).
	argFile
	// setsVar: the value names a variable set for the command (xargs --process-slot-var).
	setsVar
	// replaces: the value is replaced, inside the command's arguments, by
	// words from the input (xargs -I).
	replaces
	// execs: the command words run as they are, not through sh -c (watch -x).
	execs
)

// codeArg says which arguments a program runs as shell code. Such calls are
// never auto-approved; deny rules see the commands in the code.
type codeArg uint8

const (
	noCode     codeArg = iota
	codeWords          // eval: all arguments, joined
	codeFirst          // trap: the first argument
	codeScript         // source: a file, whose contents are not checked
	codeShell          // sh, bash…: read with the shell's own options (shell)
)

// wrapperSpec is how a program runs another one. wrapper reads the fields
// in the order they are listed; each entry sets the few its program has.
type wrapperSpec struct {
	// run handles a program whose grammar is not data (su, find -exec…);
	// the fields below are then not read.
	run func(w *shellWalker, c wrapCall)
	// code: the program runs its arguments as shell code; why says why
	// such a call is never approved (also for a program without opts).
	code codeArg
	why  string
	// applet: a multi-call binary; its first word, unless an option or
	// known only at run time, is the program it runs (busybox rm x).
	applet bool
	// legacyNice: a first word -N is the niceness (nice -10 cmd).
	legacyNice bool
	// opts is the option grammar before the command; nil: chatls doesn't
	// know it (the call is opaque, deny rules check every reading).
	opts *optTable
	// effects are what options do, by their canonical spelling (optHit.name).
	effects map[string]optEffect
	// operands come between the options and the command (timeout DURATION cmd: 1).
	operands int
	// inShell: a builtin that runs the command in this shell (command,
	// builtin): a cd inside it changes the shell's directory.
	inShell bool
	// assigns: "-" and NAME=VALUE may come before the command (env).
	assigns bool
	// viaShell: the command words are joined and run by sh -c, as if
	// written here, unless an execs option is given (watch).
	viaShell bool
	// lockFile: the first operand is a file the program opens and creates,
	// unless it is the number of an open descriptor (flock FILE, flock 9).
	lockFile bool
	// codeAfter: one of these words right after the operands makes the
	// next word shell code (flock FILE -c CODE).
	codeAfter []string
	// stdinArgs: the command gets more arguments from the input (xargs);
	// defaultCommand runs when none is given.
	stdinArgs      bool
	defaultCommand string
	// bareShell: without a command the program starts a shell (chroot).
	bareShell bool
	// kind is how allow rules see the command it runs.
	kind wrapKind
}

// hit is the first option of p that has the effect e.
func (s wrapperSpec) hit(p optParse, e optEffect) (optHit, bool) {
	for _, h := range p.opts {
		if s.effects[h.name] == e {
			return h, true
		}
	}
	return optHit{}, false
}

// wrapCall is one call of a program in the wrappers table.
type wrapCall struct {
	spec wrapperSpec
	base string
	// words is the call as written; words[0] names the program.
	words []word
	sc    *scope
	// forms and privileged are simple's: the outer layers for deny rules
	// and the outermost sudo-like form.
	forms      [][]word
	privileged []word
	record     func(func(*shellCommand))
}

// wrappers' option tables follow each program's own parser (GNU getopt_long
// with "+": options stop at the command; unique prefixes of long options
// count). An option not listed here makes the call opaque: chatls can't tell
// which word is the command.
var wrappers map[string]wrapperSpec

// The table is filled in init: its run functions analyse the command they
// find, which looks programs up in this table again.
func init() {
	wrappers = map[string]wrapperSpec{
		"sudo": {kind: wrapNamed, opts: opts("A|askpass a|auth-type= B|bell b|background C|close-from= c|login-class= D|chdir= E e|edit g|group= H|set-home h=? host= help i|login K|remove-timestamp k|reset-timestamp l|list N|no-update n|non-interactive P|preserve-groups p|prompt= R|chroot= r|role= S|stdin s|shell T|command-timeout= t|type= U|other-user= u|user= V|version v|validate preserve-env=?", true, false),
			effects: map[string]optEffect{"--shell": runsShell, "--login": runsShell, "--edit": editsFiles, "--chdir": newDir, "--chroot": newDir}},
		"doas": {kind: wrapNamed, opts: opts("a= C= L n s u=", false, false),
			effects: map[string]optEffect{"-C": runsNothing, "-s": runsShell}},
		"pkexec": {kind: wrapNamed, opts: opts("u|user= disable-internal-agent keep-cwd help version", false, false)},
		"run0": {kind: wrapNamed, opts: opts("h|help V|version no-ask-password machine= unit= property= description= slice= slice-inherit u|user= g|group= nice= D|chdir= setenv= background= shell-prompt-prefix=", true, false),
			effects: map[string]optEffect{"--chdir": newDir}},
		"env": {opts: opts("i|ignore-environment 0|null u|unset= C|chdir= S|split-string= v|debug block-signal=? default-signal=? ignore-signal=? list-signal-handling help version P=", true, false),
			effects: map[string]optEffect{"--split-string": splitsString, "-P": changesPath, "--chdir": newDir}, assigns: true},
		"timeout": {operands: 1, opts: opts("s|signal= k|kill-after= preserve-status foreground v|verbose help version", true, false)},
		"nice":    {legacyNice: true, opts: opts("n|adjustment= help version", true, false)},
		"nohup":   {opts: opts("help version", true, false)},
		"time": {opts: opts("f|format= p|portability o|output= a|append v|verbose q|quiet help V|version", true, false),
			effects: map[string]optEffect{"--output": writesValue}},
		"command": {inShell: true, opts: opts("p v V", false, false),
			effects: map[string]optEffect{"-v": runsNothing, "-V": runsNothing}},
		"builtin": {inShell: true, opts: opts("", false, false)},
		// exec with redirections only (no command) keeps them open for the
		// rest of the shell (exec 3< .env; cat <&3): what they read counts here.
		"exec":   {opts: opts("a= c l", false, false)},
		"stdbuf": {opts: opts("i|input= o|output= e|error= help version", true, false)},
		"setsid": {opts: opts("c|ctty f|fork w|wait h|help V|version", true, false)},
		"ionice": {opts: opts("c|class= n|classdata= p|pid= P|pgid= u|uid= t|ignore h|help V|version", true, false),
			effects: map[string]optEffect{"--pid": runsNothing, "--pgid": runsNothing, "--uid": runsNothing}},
		"chrt": {operands: 1, opts: opts("a|all-tasks b|batch d|deadline f|fifo i|idle o|other r|rr R|reset-on-fork T|sched-runtime= P|sched-period= D|sched-deadline= m|max p|pid v|verbose h|help V|version", true, false),
			effects: map[string]optEffect{"--pid": runsNothing, "--max": runsNothing}},
		"taskset": {operands: 1, opts: opts("a|all-tasks c|cpu-list p|pid h|help V|version", true, false),
			effects: map[string]optEffect{"--pid": runsNothing}},
		// flock FILE CMD, flock FILE -c CODE, flock FD.
		"flock": {operands: 1, lockFile: true, codeAfter: []string{"-c", "--command"},
			opts: opts("s|shared x|e|exclusive u|unlock n|nb|nonblock w|wait|timeout= o|close E|conflict-exit-code= F|no-fork verbose h|help V|version", true, false)},
		"unbuffer": {opts: opts("p", false, false)},
		"xargs": {stdinArgs: true, defaultCommand: "echo",
			opts:    opts("0|null a|arg-file= d|delimiter= E= e|eof=? I= i|replace=? L= l|max-lines=? n|max-args= o|open-tty P|max-procs= p|interactive process-slot-var= r|no-run-if-empty s|max-chars= show-limits t|verbose x|exit help version", true, false),
			effects: map[string]optEffect{"--arg-file": argFile, "--process-slot-var": setsVar, "-I": replaces, "--replace": replaces}},
		"watch": {viaShell: true, opts: opts("b|beep c|color C|no-color d|differences=? e|errexit g|chgexit n|interval= p|precise q|equexit= r|no-rerun t|no-title w|no-wrap x|exec h|help v|version", true, false),
			effects: map[string]optEffect{"--exec": execs}},
		"strace": {kind: wrapOpaque, opts: opts("a|columns= A|output-append-mode b|detach-on= c|summary-only C|summary d|debug D|daemonize=? e= E|env= f|follow-forks F h|help i|instruction-pointer I|interruptible= k|stack-traces n|syscall-number o|output= O|summary-syscall-overhead= p|attach= P|trace-path= q r|relative-timestamps=? s|string-limit= S|summary-sort-by= t T|syscall-times=? u|user= U|summary-columns= v|no-abbrev V|version w|summary-wall-clock x X|const-print-style= y Y z|successful-only Z|failed-only trace= signal= status= abbrev= verbose= raw= read= write= quiet=? kvm= decode-fds=? decode-pids= inject= fault= output-separately absolute-timestamps=? strings-in-hex=? seccomp-bpf tips=?", true, false),
			effects: map[string]optEffect{"--output": writesValue}},
		"ltrace": {kind: wrapOpaque, opts: opts("a|align= A= b|no-signals c C|demangle D|debug= e= f F|config= h|help i l|library= L n|indent= o|output= p= r s= S t T u= w|where= x= V|version", true, false),
			effects: map[string]optEffect{"--output": writesValue}},
		"unshare": {kind: wrapOpaque, bareShell: true, opts: opts("m|mount=? u|uts=? i|ipc=? n|net=? p|pid=? U|user=? C|cgroup=? T|time=? f|fork map-user= map-group= r|map-root-user c|map-current-user map-auto map-users= map-groups= kill-child=? mount-proc=? propagation= setgroups= keep-caps R|root= w|wd= S|setuid= G|setgid= monotonic= boottime= l|load-interp= h|help V|version", true, false)},
		"chroot":  {kind: wrapOpaque, bareShell: true, operands: 1, opts: opts("groups= userspec= skip-chdir help version", true, false)},

		// Grammars that are not a plain option list.
		"firejail":    {kind: wrapNamed, run: (*shellWalker).firejail},
		"su":          {kind: wrapOpaque, run: (*shellWalker).su, opts: suOpts},
		"runuser":     {kind: wrapOpaque, run: (*shellWalker).su, opts: suOpts},
		"script":      {kind: wrapOpaque, run: (*shellWalker).script, opts: opts("I|log-in= O|log-out= B|log-io= T|log-timing= t|timing=? m|logging-format= a|append c|command= e|return f|flush force E|echo= o|output-limit= q|quiet h|help V|version", true, true)},
		"parallel":    {kind: wrapOpaque, run: (*shellWalker).parallel},
		"systemd-run": {kind: wrapOpaque, why: "runs the command as a service"},
		"find":        {run: (*shellWalker).find},
		"busybox":     {applet: true},
		"toybox":      {applet: true},

		// Programs that run shell code.
		"eval":   {code: codeWords, why: "runs a string as code"},
		"trap":   {code: codeFirst, why: "registers code to run later"},
		"source": {code: codeScript, why: "runs a script's contents"},
		".":      {code: codeScript, why: "runs a script's contents"},
	}
	for s := range shells {
		wrappers[s] = wrapperSpec{code: codeShell}
	}
}

// shells run their argument or stdin as code.
var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true,
	"fish": true, "csh": true, "tcsh": true, "yash": true, "posh": true,
}

var suOpts = opts("c|command= session-command= f|fast g|group= G|supp-group= l|login m|p|preserve-environment P|pty s|shell= w|whitelist-environment= u|user= h|help V|version", true, true)

// su and runuser run commands as another user through a shell: never
// auto-approved, and deny rules check every command they could run.
func (w *shellWalker) su(c wrapCall) {
	args, sc := c.words[1:], c.sc
	w.opaque("%s runs commands as another user through a shell: never auto-approved", c.base)
	c.record(nil)
	p := c.spec.opts.parse(args)
	for _, h := range p.all("--command", "--session-command") {
		w.nestedString(h.value.text, sc)
	}
	if _, ok := p.has("--user"); ok && c.base == "runuser" {
		nested := *sc
		nested.nested = true
		if len(p.operands) > 0 {
			w.simple(p.operands, &nested, c.forms, c.privileged)
		}
	} else if len(p.operands) > 1 {
		// su USER ARGS…: the arguments go to the user's shell.
		nested := *sc
		nested.nested = true
		w.shell("sh", p.operands[1:], &nested)
	}
	if h, ok := p.has("--shell"); ok {
		w.alternatives(append([]word{h.value}, p.operands...), sc, c.forms, c.privileged)
	}
	w.alternatives(args, sc, c.forms, c.privileged)
}

// script runs a shell and writes what it shows to a file.
func (w *shellWalker) script(c wrapCall) {
	args, sc := c.words[1:], c.sc
	w.opaque("script runs a shell: never auto-approved")
	c.record(nil)
	p := c.spec.opts.parse(args)
	if h, ok := p.has("--command"); ok {
		w.nestedString(h.value.text, sc)
	}
	for _, h := range p.all("--log-in", "--log-out", "--log-io", "--log-timing", "--timing") {
		w.write(h.value, sc, "script")
	}
	if len(p.operands) > 0 {
		w.write(p.operands[0], sc, "script")
	} else {
		w.write(word{text: "typescript", lead: 10}, sc, "script")
	}
	if p.uncertain() != "" {
		w.alternatives(args, sc, c.forms, c.privileged)
	}
}

// parallel runs command strings through a shell; each run of words
// between its ::: separators may be one.
func (w *shellWalker) parallel(c wrapCall) {
	args := c.words[1:]
	w.opaque("parallel runs command strings through a shell: never auto-approved")
	c.record(nil)
	for j, a := range args {
		if !a.dyn && strings.HasPrefix(a.text, "-") || isParallelSep(a) {
			continue
		}
		k := j
		for k < len(args) && !isParallelSep(args[k]) {
			k++
		}
		if w.alts >= maxAlternatives {
			w.opaque("too many ways to read the command to check them all")
			break
		}
		w.alts++
		w.nestedString(joinWords(args[j:k]), c.sc)
	}
}

func isParallelSep(a word) bool {
	switch a.text {
	case ":::", "::::", ":::+", "::::+":
		return !a.dyn
	}
	return false
}

// firejail's options are all -x, --name or --name=value, never a separate
// value; -- may end them.
func (w *shellWalker) firejail(c wrapCall) {
	args, sc := c.words[1:], c.sc
	i := 0
	for i < len(args) && !args[i].dyn && strings.HasPrefix(args[i].text, "-") && args[i].text != "--" {
		i++
	}
	if i < len(args) && !args[i].dyn && args[i].text == "--" {
		i++
	}
	switch {
	case i < len(args) && args[i].dyn:
		w.opaque("firejail gets a word known only at run time: chatls can't tell which command it runs")
		c.record(nil)
		w.alternatives(args, sc, c.forms, c.privileged)
	case i >= len(args):
		w.opaque("firejail without a command starts a shell: never auto-approved")
		c.record(nil)
	default:
		privileged := c.privileged
		if privileged == nil {
			privileged = append([]word{{text: c.base, lead: len(c.base)}}, args...)
		}
		sub := *sc
		w.simple(args[i:], &sub, c.forms, privileged)
	}
}
