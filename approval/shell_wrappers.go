package approval

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

// wrapperSpec describes a program that runs another program: its option
// grammar and how many operands come before the wrapped command.
type wrapperSpec struct {
	opts     *optTable
	operands int // timeout DURATION cmd: 1
	kind     wrapKind
}

// wrappers' option tables follow each program's own parser (GNU getopt_long
// with "+": options stop at the command; unique prefixes of long options
// count). An option not listed here makes the call opaque: chatls can't tell
// which word is the command.
var wrappers = map[string]wrapperSpec{
	"sudo":     {kind: wrapNamed, opts: opts("A|askpass a|auth-type= B|bell b|background C|close-from= c|login-class= D|chdir= E e|edit g|group= H|set-home h=? host= help i|login K|remove-timestamp k|reset-timestamp l|list N|no-update n|non-interactive P|preserve-groups p|prompt= R|chroot= r|role= S|stdin s|shell T|command-timeout= t|type= U|other-user= u|user= V|version v|validate preserve-env=?", true, false)},
	"doas":     {kind: wrapNamed, opts: opts("a= C= L n s u=", false, false)},
	"pkexec":   {kind: wrapNamed, opts: opts("u|user= disable-internal-agent keep-cwd help version", false, false)},
	"run0":     {kind: wrapNamed, opts: opts("h|help V|version no-ask-password machine= unit= property= description= slice= slice-inherit u|user= g|group= nice= D|chdir= setenv= background= shell-prompt-prefix=", true, false)},
	"env":      {opts: opts("i|ignore-environment 0|null u|unset= C|chdir= S|split-string= v|debug block-signal=? default-signal=? ignore-signal=? list-signal-handling help version P=", true, false)},
	"timeout":  {operands: 1, opts: opts("s|signal= k|kill-after= preserve-status foreground v|verbose help version", true, false)},
	"nice":     {opts: opts("n|adjustment= help version", true, false)},
	"nohup":    {opts: opts("help version", true, false)},
	"time":     {opts: opts("f|format= p|portability o|output= a|append v|verbose q|quiet help V|version", true, false)},
	"command":  {opts: opts("p v V", false, false)},
	"builtin":  {opts: opts("", false, false)},
	"exec":     {opts: opts("a= c l", false, false)},
	"stdbuf":   {opts: opts("i|input= o|output= e|error= help version", true, false)},
	"setsid":   {opts: opts("c|ctty f|fork w|wait h|help V|version", true, false)},
	"ionice":   {opts: opts("c|class= n|classdata= p|pid= P|pgid= u|uid= t|ignore h|help V|version", true, false)},
	"chrt":     {operands: 1, opts: opts("a|all-tasks b|batch d|deadline f|fifo i|idle o|other r|rr R|reset-on-fork T|sched-runtime= P|sched-period= D|sched-deadline= m|max p|pid v|verbose h|help V|version", true, false)},
	"taskset":  {operands: 1, opts: opts("a|all-tasks c|cpu-list p|pid h|help V|version", true, false)},
	"flock":    {operands: 1, opts: opts("s|shared x|e|exclusive u|unlock n|nb|nonblock w|wait|timeout= o|close E|conflict-exit-code= F|no-fork verbose h|help V|version", true, false)},
	"unbuffer": {opts: opts("p", false, false)},
	"xargs":    {opts: opts("0|null a|arg-file= d|delimiter= E= e|eof=? I= i|replace=? L= l|max-lines=? n|max-args= o|open-tty P|max-procs= p|interactive process-slot-var= r|no-run-if-empty s|max-chars= show-limits t|verbose x|exit help version", true, false)},
	"watch":    {opts: opts("b|beep c|color C|no-color d|differences=? e|errexit g|chgexit n|interval= p|precise q|equexit= r|no-rerun t|no-title w|no-wrap x|exec h|help v|version", true, false)},
	"strace":   {kind: wrapOpaque, opts: opts("a|columns= A|output-append-mode b|detach-on= c|summary-only C|summary d|debug D|daemonize=? e= E|env= f|follow-forks F h|help i|instruction-pointer I|interruptible= k|stack-traces n|syscall-number o|output= O|summary-syscall-overhead= p|attach= P|trace-path= q r|relative-timestamps=? s|string-limit= S|summary-sort-by= t T|syscall-times=? u|user= U|summary-columns= v|no-abbrev V|version w|summary-wall-clock x X|const-print-style= y Y z|successful-only Z|failed-only trace= signal= status= abbrev= verbose= raw= read= write= quiet=? kvm= decode-fds=? decode-pids= inject= fault= output-separately absolute-timestamps=? strings-in-hex=? seccomp-bpf tips=?", true, false)},
	"ltrace":   {kind: wrapOpaque, opts: opts("a|align= A= b|no-signals c C|demangle D|debug= e= f F|config= h|help i l|library= L n|indent= o|output= p= r s= S t T u= w|where= x= V|version", true, false)},
	"unshare":  {kind: wrapOpaque, opts: opts("m|mount=? u|uts=? i|ipc=? n|net=? p|pid=? U|user=? C|cgroup=? T|time=? f|fork map-user= map-group= r|map-root-user c|map-current-user map-auto map-users= map-groups= kill-child=? mount-proc=? propagation= setgroups= keep-caps R|root= w|wd= S|setuid= G|setgid= monotonic= boottime= l|load-interp= h|help V|version", true, false)},
	"chroot":   {kind: wrapOpaque, operands: 1, opts: opts("groups= userspec= skip-chdir help version", true, false)},
	"firejail": {kind: wrapNamed},
	// Handled by wrapperSpecial: their grammar is not a plain option list.
	"su": {kind: wrapOpaque}, "runuser": {kind: wrapOpaque}, "script": {kind: wrapOpaque},
	"parallel": {kind: wrapOpaque}, "systemd-run": {kind: wrapOpaque},
}

// shells run their argument or stdin as code.
var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true,
	"fish": true, "csh": true, "tcsh": true, "yash": true, "posh": true,
}
