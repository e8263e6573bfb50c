package approval

import (
	"fmt"
	"strings"
	"testing"
)

// TestWrapperEffectsNameTheirOptions: an effect keyed by a spelling that is
// not an option's canonical name (optHit.name) would never apply.
func TestWrapperEffectsNameTheirOptions(t *testing.T) {
	for name, spec := range wrappers {
		if len(spec.effects) > 0 && spec.opts == nil {
			t.Errorf("%s: effects without an option table", name)
			continue
		}
		for opt := range spec.effects {
			p := spec.opts.parse(lits(opt + " x"))
			if len(p.opts) != 1 || p.opts[0].name != opt {
				t.Errorf("%s: effect on %s, which the table reads as %+v (unknown %v)", name, opt, p.opts, p.unknown)
			}
		}
	}
}

// analysisText is what the wrapper table decides about a call: each command
// (~ nested, only for deny rules; <file it reads; @ its directory when not
// the call's), each write and each reason it is opaque.
func analysisText(a *shellAnalysis, dir string) string {
	var parts []string
	for _, c := range a.commands {
		ws := make([]string, len(c.words))
		for i, x := range c.words {
			ws[i] = displayWord(x)
		}
		s := strings.Join(ws, " ")
		if c.nested {
			s = "~" + s
		}
		for _, r := range c.reads {
			s += " <" + strings.TrimPrefix(r, dir+"/")
		}
		if c.cwd != dir {
			s += " @" + c.cwd
		}
		parts = append(parts, "["+s+"]")
	}
	for _, wt := range a.writes {
		target := strings.TrimPrefix(wt.path, dir+"/")
		if wt.reason != "" {
			target = "?"
		}
		parts = append(parts, fmt.Sprintf("write(%s: %s)", wt.via, target))
	}
	for _, o := range a.opaque {
		parts = append(parts, "opaque("+o+")")
	}
	return strings.Join(parts, " ")
}

// TestWrapperTable pins, for each kind of entry in the wrappers table, the
// commands a call runs (the form allow rules match), what it writes and
// why it is opaque.
func TestWrapperTable(t *testing.T) {
	const dir = "/w"
	for _, tc := range []struct{ cmd, want string }{
		// Transparent: allow rules see the command.
		{"timeout 5 ls", "[ls]"},
		{"timeout -s KILL 5 ls", "[ls]"},
		{"timeout 5", "[timeout 5]"},
		{"timeout $T ls", "[timeout $… ls] [~$… ls] [~ls] [~ls] opaque(timeout has an argument known only at run time where an option may stand: chatls can't tell which command it runs) opaque(the command name is built at run time (\"$…\"); such commands are never auto-approved)"},
		{"timeout -- $T ls", "[timeout -- $… ls] [~$… ls] [~ls] [~ls] opaque(timeout has an operand known only at run time (\"$…\"): chatls can't tell which command it runs) opaque(the command name is built at run time (\"$…\"); such commands are never auto-approved)"},
		{"nice -n 5 ls", "[ls]"},
		{"nice -10 ls", "[ls]"},
		{"nohup ls", "[ls]"},
		{"stdbuf -oL ls", "[ls]"},
		{"setsid -f ls", "[ls]"},
		{"unbuffer -p ls", "[ls]"},
		{"exec ls", "[ls]"},
		{"exec", "[exec]"},
		{"env --frob ls", "[env --frob ls] [~ls] opaque(env has an option chatls does not know (--frob): chatls can't tell which command it runs)"},
		{"timeout --pres 5 ls", "[timeout --pres 5 ls] [~ls] opaque(timeout has the abbreviated option --pres: write options in full to have the call checked)"},
		// Options that make the wrapper run nothing.
		{"chrt -p 1", "[chrt -p 1]"},
		{"chrt -m", "[chrt -m]"},
		{"chrt 5 ls", "[ls]"},
		{"taskset -p 3 1", "[taskset -p 3 1]"},
		{"taskset 3 ls", "[ls]"},
		{"ionice -p 1", "[ionice -p 1]"},
		{"ionice -c 3 ls", "[ls]"},
		{"command -v ls", "[command -v ls]"},
		{"doas -C /etc/doas.conf ls", "[doas -C /etc/doas.conf ls]"},
		// command and builtin run cd in this shell; other wrappers in a child.
		{"command cd /tmp; ls", "[cd /tmp] [ls @/tmp]"},
		{"builtin cd /tmp; ls", "[cd /tmp] [ls @/tmp]"},
		{"nohup cd /tmp; ls", "[cd /tmp] [ls]"},
		// Named: allow rules must name the wrapper.
		{"sudo ls", "[sudo ls]"},
		{"sudo -u root ls", "[sudo -u root ls]"},
		{"pkexec ls", "[pkexec ls]"},
		{"run0 ls", "[run0 ls]"},
		{"doas ls", "[doas ls]"},
		{"sudo -s ls", "[~ls] [sudo -s ls] opaque(sudo -s/-i runs a shell: never auto-approved)"},
		{"sudo -i", "[sudo -i] opaque(sudo -s/-i runs a shell: never auto-approved)"},
		{"doas -s", "[doas -s] opaque(doas -s/-i runs a shell: never auto-approved)"},
		{"sudo -e a /etc/b", "[sudo -e a /etc/b] write(sudoedit: a) write(sudoedit: /etc/b)"},
		{"sudo -D /tmp ls x", "[sudo -D /tmp ls x @]"},
		{"run0 --chdir=/tmp ls", "[run0 --chdir=/tmp ls @]"},
		{"firejail --net=none ls", "[firejail --net=none ls]"},
		{"firejail -- ls", "[firejail -- ls]"},
		{"firejail", "[firejail] opaque(firejail without a command starts a shell: never auto-approved)"},
		{"firejail $X", "[firejail $…] [~$…] opaque(firejail gets a word known only at run time: chatls can't tell which command it runs) opaque(the command name is built at run time (\"$…\"); such commands are never auto-approved)"},
		// env: options, then "-" and NAME=VALUE, then the command.
		{"env -i - A=1 ls", "[ls] opaque(A with env puts it in the environment of the programs that run; chatls knows only some variables to be harmless there (LANG, LC_*, TZ, NO_COLOR, GOOS…))"},
		{"env -i - GOOS=linux ls", "[ls]"},
		{"env -C /tmp ls", "[ls @]"},
		{"env -S 'ls -l' x", "[~ls -l x] [x] opaque(env -S splits a string into a command: never auto-approved)"},
		{"env -P /x ls", "[ls] opaque(env -P changes where programs are found)"},
		{"env LD_PRELOAD=x ls", "[ls] opaque(setting LD_PRELOAD injects libraries into every program)"},
		{"env $X ls", "[env $… ls] [~$… ls] [~ls] [~ls] opaque(env has an argument known only at run time where an option may stand: chatls can't tell which command it runs) opaque(the command name is built at run time (\"$…\"); such commands are never auto-approved)"},
		{"env GOOS=linux $X ls", "[env GOOS=linux $… ls] [~$… ls] [~ls] [~ls] opaque(env gets a word known only at run time where a variable or the command stands) opaque(the command name is built at run time (\"$…\"); such commands are never auto-approved)"},
		// Options whose value is a file written, in every occurrence.
		{"/usr/bin/time -o t ls", "[ls] write(time -o: t)"},
		{"/usr/bin/time -o a -o b ls", "[ls] write(time -o: a) write(time -o: b)"},
		{"strace -o t ls", "[strace -o t ls] [~ls] write(strace -o: t) opaque(strace runs the command in another root, user or namespace, or under a tracer: never auto-approved)"},
		{"ltrace -o t ls", "[ltrace -o t ls] [~ls] write(ltrace -o: t) opaque(ltrace runs the command in another root, user or namespace, or under a tracer: never auto-approved)"},
		{"strace -p 1", "[strace -p 1]"},
		// Opaque: another root, user or namespace, a tracer.
		{"chroot /r ls", "[chroot /r ls] [~ls] opaque(chroot runs the command in another root, user or namespace, or under a tracer: never auto-approved)"},
		{"chroot /r", "[chroot /r] opaque(chroot without a command starts a shell: never auto-approved)"},
		{"unshare -r", "[unshare -r] opaque(unshare without a command starts a shell: never auto-approved)"},
		{"systemd-run ls", "[systemd-run ls] [~ls] opaque(systemd-run runs the command as a service: never auto-approved)"},
		// flock FILE CMD | FILE -c CODE | FD.
		{"flock l ls", "[ls] write(flock: l)"},
		{"flock 9", "[flock 9]"},
		{"flock l -c 'rm x'", "[~rm x] [flock l -c rm x] write(flock: l) write(rm: x) opaque(flock -c runs a string as shell code: never auto-approved)"},
		{"flock l --command 'rm x'", "[~rm x] [flock l --command rm x] write(flock: l) write(rm: x) opaque(flock -c runs a string as shell code: never auto-approved)"},
		// xargs: arguments from the input, echo by default, -I fills them in.
		{"xargs ls", "[ls $…]"},
		{"xargs", "[echo $…]"},
		{"xargs -I{} cp {} d", "[cp {} d $…] write(cp: ?)"},
		{"xargs -a list ls", "[ls $… <list]"},
		{"xargs -a a -a b ls", "[ls $… <a <b]"},
		{"xargs -a $F ls", "[ls $…] opaque(xargs reads its arguments from a file named at run time)"},
		{"xargs --process-slot-var=PATH ls", "[ls $…] opaque(xargs --process-slot-var sets PATH in the commands it runs)"},
		// watch hands its words to sh -c unless -x.
		{"watch 'ls; rm x'", "[ls] [rm x] write(rm: x)"},
		{"watch -x ls ';'", "[ls ;]"},
		// Other grammars.
		{"su -c 'rm x'", "[su -c rm x] [~rm x] [~rm x] write(rm: x) opaque(su runs commands as another user through a shell: never auto-approved)"},
		{"runuser -u u ls", "[runuser -u u ls] [~ls] [~u ls] [~ls] opaque(runuser runs commands as another user through a shell: never auto-approved)"},
		{"script -c ls out", "[script -c ls out] [~ls] write(script: out) opaque(script runs a shell: never auto-approved)"},
		{"parallel 'rm {}' ::: a", "[parallel rm {} ::: a] [~rm {}] [~a] write(rm: {}) opaque(parallel runs command strings through a shell: never auto-approved)"},
		{"find . -exec rm {} +", "[rm {}] [find .] write(rm: ?)"},
		{"find a b -name x -delete", "[find a b -name x -delete] write(find -delete: a) write(find -delete: b)"},
		{"find . -fprint /etc/x", "[find . -fprint /etc/x] write(find -fprint: /etc/x)"},
		{"busybox rm x", "[rm x] write(rm: x)"},
		{"busybox --list", "[busybox --list]"},
		// Programs that run shell code.
		{"eval 'rm x'", "[~rm x] [eval rm x] write(rm: x) opaque(eval runs a string as code: never auto-approved)"},
		{"trap 'rm x' EXIT", "[~rm x] [trap rm x EXIT] write(rm: x) opaque(trap registers code to run later: never auto-approved)"},
		{"source s.sh", "[source s.sh] opaque(source runs a script's contents: never auto-approved)"},
		{". s.sh", "[. s.sh] opaque(. runs a script's contents: never auto-approved)"},
		{"sh -c 'rm x'", "[~rm x] [sh -c rm x] write(rm: x) opaque(sh -c runs a string as shell code: never auto-approved)"},
		{"bash s.sh", "[bash s.sh] opaque(bash runs the script \"s.sh\": its contents are not checked)"},
	} {
		if got := analysisText(analyzeShell(tc.cmd, dir, "/h"), dir); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.cmd, got, tc.want)
		}
	}
}
