package approval

import (
	"context"
	"strings"
	"testing"
)

// Configurations shared by the table.
const (
	cfgGo = `[tools]
autoApprove = ["$default", "bash(go test *)", "bash(echo *)", "bash(ls *)", "bash(cat *)", "bash(grep *)", "bash(git status *)", "bash(npm run test *)"]
deny = ["bash(rm -rf *)", "bash(git push --force *)", "write(.github/**)"]
`
	cfgFiles = `[tools]
autoApprove = ["$default", "bash(rm *)", "bash(cp *)", "bash(mv *)", "bash(tee *)", "bash(sed *)", "bash(touch *)", "bash(dd *)", "bash(find *)", "bash(cat *)", "bash(echo *)"]
deny = ["bash(rm -rf /)", "write(.github/**)"]
`
	cfgReadonly = "[tools]\nautoApprove = [\"$readonly\"]\n"
	cfgStandard = "[tools]\nautoApprove = [\"$standard\"]\n"
)

type decideRow struct {
	name    string
	user    string // user config TOML ({root}, {home}, {tmp} expanded)
	ws      string // .chatls.toml
	trusted bool
	fm      []FrontmatterOp
	fmErr   string // Sources.FrontmatterError
	sandbox bool
	tool    string
	input   map[string]any
	want    Decision
}

func sh(cmd string) (string, map[string]any) { return "bash", map[string]any{"command": cmd} }

func at(p string) map[string]any { return map[string]any{"path": p} }

// bashRows builds rows for one config from command → decision pairs.
func bashRows(prefix, user string, cases ...any) []decideRow {
	var rows []decideRow
	for i := 0; i+1 < len(cases); i += 2 {
		cmd := cases[i].(string)
		rows = append(rows, decideRow{name: prefix + ": " + cmd, user: user, tool: "bash", input: map[string]any{"command": cmd}, want: cases[i+1].(Decision)})
	}
	return rows
}

func decideRows() []decideRow {
	A, R, D := Approve, RequireApproval, Deny
	rows := []decideRow{
		// Default policy: $default, bash asks.
		{name: "default read in workspace", tool: "read", input: at("src/main.go"), want: A},
		{name: "default read outside", tool: "read", input: at("../outside.txt"), want: R},
		{name: "default read /etc/passwd", tool: "read", input: at("/etc/passwd"), want: R},
		{name: "default write in workspace", tool: "write", input: at("out.txt"), want: A},
		{name: "default edit in workspace", tool: "edit", input: at("src/main.go"), want: A},
		{name: "default write temp dir", tool: "write", input: at("{tmp}/scratch.txt"), want: A},
		{name: "default write tmp/../etc (corpus 12)", tool: "write", input: at("/tmp/../etc/chatls-corpus-pwned-2"), want: R},
		{name: "default write tmpdir/.. escape", tool: "write", input: at("{tmp}/../etc/x"), want: R},
		{name: "default write via symlink dir to /etc", tool: "write", input: at("link-etc/passwd"), want: R},
		{name: "default write dangling symlink to ~/.bashrc", tool: "write", input: at("sneaky.txt"), want: R},
		{name: "default write through home symlink", tool: "write", input: at("homelink/x.txt"), want: R},
		{name: "default write src/../../x", tool: "write", input: at("src/../../x"), want: R},
		{name: "default write home", tool: "write", input: at("~/x.txt"), want: R},
		{name: "default read .env", tool: "read", input: at(".env"), want: R},
		{name: "default read .env.example", tool: "read", input: at(".env.example"), want: R},
		{name: "default read credentials", tool: "read", input: at("config/credentials.json"), want: R},
		{name: "default read ssh key", tool: "read", input: at("{home}/.ssh/id_rsa"), want: R},
		{name: "default read id_ed25519 in workspace", tool: "read", input: at("keys/id_ed25519"), want: R},
		{name: "default read .git/config", tool: "read", input: at(".git/config"), want: R},
		{name: "default write .aws", tool: "write", input: at(".aws/config"), want: R},
		{name: "default write .netrc", tool: "write", input: at(".netrc"), want: R},
		{name: "default write .gnupg", tool: "write", input: at(".gnupg/x"), want: R},
		{name: "default read .ENV case", tool: "read", input: at(".ENV"), want: R},
		{name: "default grep not in $default", tool: "grep", input: map[string]any{"pattern": "x", "path": nil}, want: R},
		{name: "default bash asks", tool: "bash", input: map[string]any{"command": "ls"}, want: R},
		{name: "default calculator asks", tool: "calculator", input: map[string]any{"expression": "1+1"}, want: R},
		{name: "default read without path", tool: "read", input: map[string]any{}, want: R},
		{name: "default bash without command", tool: "bash", input: map[string]any{}, want: R},
		{name: "default write lookalike dir name stays inside", tool: "write", input: at("ѕrc/x.txt"), want: A},
		{name: "default write cyrillic .еnv is not .env", tool: "read", input: at(".еnv"), want: A},

		// Presets.
		{name: "readonly read", user: cfgReadonly, tool: "read", input: at("src/main.go"), want: A},
		{name: "readonly grep", user: cfgReadonly, tool: "grep", input: map[string]any{"pattern": "x", "path": "src"}, want: A},
		{name: "readonly find", user: cfgReadonly, tool: "find", input: map[string]any{"pattern": "*.go"}, want: A},
		{name: "readonly ls", user: cfgReadonly, tool: "ls", input: at("."), want: A},
		{name: "readonly write asks", user: cfgReadonly, tool: "write", input: at("x"), want: R},
		{name: "readonly grep outside", user: cfgReadonly, tool: "grep", input: map[string]any{"pattern": "x", "path": "/etc"}, want: R},
		{name: "standard write", user: cfgStandard, tool: "write", input: at("x"), want: A},
		{name: "standard ls", user: cfgStandard, tool: "ls", input: at("src"), want: A},
		{name: "user preset overrides builtin", user: "[tools]\nautoApprove = [\"$readonly\"]\n[tools.presets.\"$readonly\"]\napprove = [\"read\"]\n", tool: "grep", input: at("src"), want: R},
		{name: "custom preset approves", user: "[tools]\nautoApprove = [\"$default\", \"$make\"]\n[tools.presets.\"$make\"]\napprove = [\"bash(make *)\"]\ndeny = [\"bash(make deploy *)\"]\n", tool: "bash", input: map[string]any{"command": "make test"}, want: A},
		{name: "custom preset deny wins", user: "[tools]\nautoApprove = [\"$default\", \"$make\"]\n[tools.presets.\"$make\"]\napprove = [\"bash(make *)\"]\ndeny = [\"bash(make deploy *)\"]\n", tool: "bash", input: map[string]any{"command": "make deploy prod"}, want: D},
		{name: "remove write from preset", user: "[tools]\nautoApproveRemove = [\"write\"]\n", tool: "write", input: at("x"), want: R},
		{name: "remove write keeps read", user: "[tools]\nautoApproveRemove = [\"write\"]\n", tool: "read", input: at("src/main.go"), want: A},

		// Explicit path rules.
		{name: "explicit rule names .env.example", user: "[tools]\nautoApprove = [\"read(.env.example)\"]\n", tool: "read", input: at(".env.example"), want: A},
		{name: "explicit .env.example does not cover .env", user: "[tools]\nautoApprove = [\"read(.env.example)\"]\n", tool: "read", input: at(".env"), want: R},
		{name: "read(**) does not name secrets", user: "[tools]\nautoApprove = [\"read(**)\"]\n", tool: "read", input: at(".env"), want: R},
		{name: "read(**) covers workspace", user: "[tools]\nautoApprove = [\"read(**)\"]\n", tool: "read", input: at("src/main.go"), want: A},
		{name: "read(**) is relative to the root", user: "[tools]\nautoApprove = [\"read(**)\"]\n", tool: "read", input: at("/etc/hosts"), want: R},
		{name: "write(src/**) in src", user: "[tools]\nautoApprove = [\"write(src/**)\"]\n", tool: "write", input: at("src/a/b.go"), want: A},
		{name: "write(src/**) outside src", user: "[tools]\nautoApprove = [\"write(src/**)\"]\n", tool: "write", input: at("docs/a.md"), want: R},
		{name: "write(src/**) lookalike ѕrc", user: "[tools]\nautoApprove = [\"write(src/**)\"]\n", tool: "write", input: at("ѕrc/a.go"), want: R},
		{name: "write(src/**) dot-dot escape", user: "[tools]\nautoApprove = [\"write(src/**)\"]\n", tool: "write", input: at("src/../../x"), want: R},
		{name: "write(src/**) division slash is a file name", user: "[tools]\nautoApprove = [\"write(src/**)\"]\n", tool: "write", input: at("src/..∕..∕x"), want: A},
		{name: "gitignore bare name any depth", user: "[tools]\nautoApprove = [\"write(*.log)\"]\n", tool: "write", input: at("a/b/c.log"), want: A},
		{name: "absolute home rule", user: "[tools]\nautoApprove = [\"write(~/notes/**)\"]\n", tool: "write", input: at("{home}/notes/today.md"), want: A},
		{name: "absolute rule outside", user: "[tools]\nautoApprove = [\"write(~/notes/**)\"]\n", tool: "write", input: at("{home}/other.md"), want: R},
		{name: "deny path rule", user: "[tools]\ndeny = [\"read(secrets/**)\"]\n", tool: "read", input: at("secrets/a.txt"), want: D},
		{name: "deny bare tool", user: "[tools]\ndeny = [\"write\"]\n", tool: "write", input: at("x"), want: D},
		{name: "ask rule beats approve in the same layer", user: "[tools]\nautoApprove = [\"bash(git *)\"]\n[[tools.rules]]\nrule = \"bash(git push *)\"\ndecision = \"ask\"\n", tool: "bash", input: map[string]any{"command": "git push origin main"}, want: R},
		{name: "ask rule leaves others", user: "[tools]\nautoApprove = [\"bash(git *)\"]\n[[tools.rules]]\nrule = \"bash(git push *)\"\ndecision = \"ask\"\n", tool: "bash", input: map[string]any{"command": "git log"}, want: A},
		{name: "rules table deny", user: "[[tools.rules]]\nrule = \"bash(curl *)\"\ndecision = \"deny\"\nreason = \"no network\"\n", tool: "bash", input: map[string]any{"command": "curl https://x"}, want: D},

		// MCP and other tools.
		{name: "mcp wildcard", user: "[tools]\nautoApprove = [\"slack:*\"]\n", tool: "slack:channels_list", input: map[string]any{}, want: A},
		{name: "mcp other server", user: "[tools]\nautoApprove = [\"slack:*\"]\n", tool: "github:list", input: map[string]any{}, want: R},
		{name: "mcp deny wins", user: "[tools]\nautoApprove = [\"slack:*\"]\ndeny = [\"slack:post_*\"]\n", tool: "slack:post_message", input: map[string]any{}, want: D},
		{name: "key pattern match", user: "[tools]\nautoApprove = [\"web_fetch(url=https://go.dev/*)\"]\n", tool: "web_fetch", input: map[string]any{"url": "https://go.dev/doc"}, want: A},
		{name: "key pattern miss", user: "[tools]\nautoApprove = [\"web_fetch(url=https://go.dev/*)\"]\n", tool: "web_fetch", input: map[string]any{"url": "https://evil.example/go.dev/"}, want: R},
		{name: "calculator by name", user: "[tools]\nautoApprove = [\"calculator\"]\n", tool: "calculator", input: map[string]any{"expression": "2+2"}, want: A},

		// requireApproval and catch-all.
		{name: "requireApproval false approves", user: "[tools]\nrequireApproval = false\n", tool: "calculator", input: map[string]any{}, want: A},
		{name: "requireApproval false keeps safety", user: "[tools]\nrequireApproval = false\n", tool: "bash", input: map[string]any{"command": "echo $(id)"}, want: R},
		{name: "requireApproval false keeps secrets", user: "[tools]\nrequireApproval = false\n", tool: "read", input: at(".env"), want: R},
		{name: "requireApproval false keeps deny", user: "[tools]\nrequireApproval = false\ndeny = [\"bash(rm *)\"]\n", tool: "bash", input: map[string]any{"command": "rm x"}, want: D},
	}

	rows = append(rows, bashRows("go", cfgGo,
		"go test ./...", A,
		"go test", A,
		"go test -v -run TestX ./pkg/...", A,
		"go test ./... # running tests", A,
		"/usr/bin/go test ./...", A,
		"./go test ./...", R,
		"/tmp/go test ./...", R,
		"go build ./...", R,
		"go vet", R,
		"go test ./... && go build", R,
		"go test ./... ; rm -rf /", D,
		"go test ./...\nrm -rf /", D,
		"go test ./... || rm -fr /", D,
		"go test | rm -r -f x", D,
		"go test & rm --recursive --force x", D,
		"(rm -rf x)", D,
		"{ rm -rf x; }", D,
		"for f in a b; do rm -rf $f; done", D,
		"while true; do rm -rf x; done", D,
		"until false; do rm -rf x; done", D,
		"if true; then rm -rf x; fi", D,
		"case x in x) rm -rf y;; esac", D,
		"f() { rm -rf x; }; f", D,
		"echo $(rm -rf x)", D,
		"echo `rm -rf x`", D,
		"cat <(rm -rf x)", D,
		"echo ${X:-$(rm -rf x)}", D,
		"diff <(ls) <(ls)", R,
		"echo $(date)", R,
		"echo `date`", R,
		"eval 'rm -rf x'", D,
		"eval ls", R,
		"sh -c 'rm -rf x'", D,
		"bash -c 'echo hi'", R,
		"zsh -c 'rm -rf /'", D,
		"dash -c ls", R,
		"bash <<< 'rm -rf x'", D,
		"sh <<EOF\nrm -rf x\nEOF", D,
		"echo ls | sh", R,
		"bash script.sh", R,
		"source ./env.sh", R,
		". ./env.sh", R,
		"trap 'rm -rf x' EXIT", D,
		"sudo rm -rf /", D,
		"doas rm -rf x", D,
		"env rm -rf x", D,
		"env FOO=1 rm -rf x", D,
		"env -S 'rm -rf x'", D,
		"timeout 5 rm -rf x", D,
		"timeout -s KILL 5 rm -rf x", D,
		"nice -n 10 rm -rf x", D,
		"nice -10 rm -rf x", D,
		"nohup rm -rf x", D,
		"time rm -rf x", D,
		"command rm -rf x", D,
		"builtin rm -rf x", D,
		"exec rm -rf x", D,
		"xargs rm -rf", D,
		"ls | xargs -0 rm -rf", D,
		"find . -exec rm -rf {} \\;", D,
		"find . -execdir rm -rf {} +", D,
		"find . -ok rm -rf {} \\;", D,
		"watch rm -rf x", D,
		"watch -n 1 'rm -rf x'", D,
		"busybox rm -rf x", D,
		"/bin/rm -rf x", D,
		"/usr/bin/rm -rf x", D,
		"./rm -rf x", D,
		"r''m -rf x", D,
		"\\rm -rf x", D,
		"\"rm\" -rf x", D,
		"'rm' -rf x", D,
		"$'\\x72m' -rf x", D,
		"rm -fr x", D,
		"rm -r -f x", D,
		"rm --recursive --force x", D,
		"rm -R -f x", D,
		"rm -rfv x", D,
		"rm x -rf", D,
		"rm -r x", R,
		"CMD=rm; $CMD -rf x", D, // incomplete analysis: deny rules scan every word (issue 13)
		"${X:-rm} -rf x", D,
		"/bin/r? -rf x", D,
		"r* -rf x", D,
		"rм -rf x", R,
		"r\u200bm -rf x", R,
		"git push --force", D,
		"git push -f origin main", D,
		"git push origin --force", D,
		"git status", A,
		"git status --short", A,
		"git status && git push --force", D,
		"git status && rm x", R,
		"git status && rm -rf /", D,
		"git status # && rm -rf /", A,
		"npm run test -- --watch", A,
		"npm run build", R,
		"echo hi > out.txt", A,
		"echo hi > src/new.txt", A,
		"echo hi > {tmp}/x", A,
		"echo hi > ~/.bashrc", R,
		"echo hi >> {home}/.profile", R,
		"echo hi > {home}/plain.txt", R,
		"echo hi &> /etc/x", R,
		"echo hi >| /etc/x", R,
		"echo hi > /tmp/../etc/x", R,
		"echo hi > link-etc/x", R,
		"echo hi > sneaky.txt", R,
		"echo hi 2>/dev/null", A,
		"echo hi >/dev/null 2>&1", A,
		"echo hi > $OUT", R,
		"echo hi > *.txt", R,
		"echo hi > .env", R,
		"echo x > .github/workflows/ci.yml", D,
		"cat <<EOF > out.txt\nhello\nEOF", A,
		"cat <<EOF > ~/.bashrc\nhello\nEOF", R,
		"cat <<EOF\n$(rm -rf x)\nEOF", D,
		"cat <<'EOF'\n$(rm -rf x)\nEOF", A,
		"cd src && go test ./...", A,
		"cd src; echo hi > out.txt", A,
		"cd /etc && go test", R,
		"cd /etc; echo x > passwd", R,
		"cd $DIR && echo x > out.txt", R,
		"cd .. && ls", R,
		"X=1 go test ./...", R, // issue 41: X could be GOCACHEPROG
		"CGO_ENABLED=0 go test ./...", A,
		"CGO_ENABLED=0 go test ./...", A,
		"PATH=/tmp/evil:$PATH go test", R,
		"export PATH=/x; go test", R,
		"LD_PRELOAD=/x.so go test", R,
		"GIT_SSH_COMMAND='rm -rf ~' git status", D, // a command git may run: the deny scan sees it
		"GOFLAGS=-exec=/tmp/x go test", R,
		"env GOOS=linux go test", A,
		"env -i go test", A,
		"set -euo pipefail; go test ./...", A,
		"true && go test", A,
		"echo $((1+2))", A,
		"echo $((x+1))", R,
		"X='a[$(id)]'; echo $((X))", R,
		"[[ $x -eq 1 ]] && go test", R,
		"echo ${PWD}", A,
		"go test ./... > /dev/null 2>&1", A,
		"timeout 10 go test ./...", A,
		"nice go test", A,
		"xargs grep foo", A,
		"xargs -I{} sh -c 'echo {}'", R,
		"sudo go test ./...", R,
		"sudo -s", R,
		"busybox ls", A,
		"ls; ls -la", A,
		"go test (", R,
		"echo \"unterminated", R,
		"", R,
		"   ", R,
		"ls\n\n# only a comment\n", A,
	)...)

	rows = append(rows, bashRows("files", cfgFiles,
		"sed -i s/a/b/ file.txt", A,
		"sed -i.bak s/a/b/ src/main.go", A,
		"sed -i s/a/b/ ~/.bashrc", R,
		"sed 's/x/y/e' file", R,
		"sed -n 'w /etc/x' file", R,
		"sed 's/x/y/w /etc/x' file", R,
		"sed s/a/b/ file", A,
		"cp a b", A,
		"cp a /etc/b", R,
		"cp -t /etc a", R,
		"mv a b", A,
		"mv /etc/passwd x", R,
		"rm x", A,
		"rm ~/.bashrc", R,
		"rm -rf ./build", A,
		"rm -rf /", D,
		"rm -fr /", D,
		"touch {home}/x", R,
		"touch x", A,
		"dd if=/dev/zero of=/etc/x", R,
		"dd if=/dev/zero of=disk.img", A,
		"ls | xargs rm", R,
		"find . -name '*.o' -delete", A,
		"find / -delete", R,
		"find . -exec cat {} \\;", A,
		"find . -exec sh -c 'cat x' \\;", R,
		"find . -fprint /etc/x", R,
		"echo x | tee out.txt", A,
		"echo x | tee ~/.bashrc", R,
		"echo x | tee -a .github/x", D,
		"rm .env", R,
		"rm *.o", R,
		"rm \"$F\"", R,
	)...)

	// Trust and layers.
	rows = append(rows,
		decideRow{name: "untrusted workspace approval ignored", ws: "[tools]\nautoApprove = [\"$default\", \"bash\"]\n", tool: "bash", input: map[string]any{"command": "ls"}, want: R},
		decideRow{name: "trusted workspace approval", ws: "[tools]\nautoApprove = [\"$default\", \"bash\"]\n", trusted: true, tool: "bash", input: map[string]any{"command": "ls"}, want: A},
		decideRow{name: "trusted bare bash still checks writes", ws: "[tools]\nautoApprove = [\"$default\", \"bash\"]\n", trusted: true, tool: "bash", input: map[string]any{"command": "echo x > ~/.bashrc"}, want: R},
		decideRow{name: "untrusted workspace deny applies", ws: "[tools]\ndeny = [\"read\"]\n", tool: "read", input: at("src/main.go"), want: D},
		decideRow{name: "untrusted workspace removal applies", ws: "[tools]\nautoApproveRemove = [\"write\"]\n", tool: "write", input: at("x"), want: R},
		decideRow{name: "untrusted workspace set narrows", ws: "[tools]\nautoApprove = [\"$readonly\"]\n", tool: "write", input: at("x"), want: R},
		decideRow{name: "untrusted workspace set keeps inherited read", ws: "[tools]\nautoApprove = [\"$readonly\"]\n", tool: "read", input: at("src/main.go"), want: A},
		decideRow{name: "untrusted workspace set addition ignored", ws: "[tools]\nautoApprove = [\"$readonly\"]\n", tool: "grep", input: at("src"), want: R},
		decideRow{name: "trusted workspace set addition", ws: "[tools]\nautoApprove = [\"$readonly\"]\n", trusted: true, tool: "grep", input: at("src"), want: A},
		decideRow{name: "untrusted requireApproval=false ignored", ws: "[tools]\nrequireApproval = false\n", tool: "calculator", input: map[string]any{}, want: R},
		decideRow{name: "trusted requireApproval=false", ws: "[tools]\nrequireApproval = false\n", trusted: true, tool: "calculator", input: map[string]any{}, want: A},
		decideRow{name: "untrusted rules table approve ignored", ws: "[[tools.rules]]\nrule = \"bash(ls *)\"\ndecision = \"approve\"\n", tool: "bash", input: map[string]any{"command": "ls"}, want: R},
		decideRow{name: "trusted rules table approve", ws: "[[tools.rules]]\nrule = \"bash(ls *)\"\ndecision = \"approve\"\n", trusted: true, tool: "bash", input: map[string]any{"command": "ls"}, want: A},
		decideRow{name: "untrusted ask rule narrows when user passes", ws: "[[tools.rules]]\nrule = \"read(src/**)\"\ndecision = \"ask\"\n", tool: "read", input: at("src/main.go"), want: A},
		decideRow{name: "user and trusted workspace rules combine", user: "[tools]\nautoApprove = [\"bash(go test *)\"]\n", ws: "[tools]\nautoApproveAppend = [\"bash(make *)\"]\n", trusted: true, tool: "bash", input: map[string]any{"command": "go test && make lint"}, want: A},
		decideRow{name: "untrusted append does not combine", user: "[tools]\nautoApprove = [\"bash(go test *)\"]\n", ws: "[tools]\nautoApproveAppend = [\"bash(make *)\"]\n", tool: "bash", input: map[string]any{"command": "go test && make lint"}, want: R},
		decideRow{name: "untrusted writable ignored", ws: "[sandbox]\nwritable = [\"/etc\"]\n", tool: "write", input: at("/etc/x"), want: R},
		decideRow{name: "user writable extends presets", user: "[sandbox]\nwritable = [\"{home}/notes\"]\n", tool: "write", input: at("{home}/notes/a.md"), want: A},
		decideRow{name: "untrusted preset definition ignored", ws: "[tools]\nautoApprove = [\"$readonly\"]\n[tools.presets.\"$readonly\"]\napprove = [\"bash\"]\n", tool: "bash", input: map[string]any{"command": "ls"}, want: R},

		// Sandbox resolver.
		decideRow{name: "sandbox approves bash", user: "[tools]\nautoApproveSandboxed = true\n", sandbox: true, tool: "bash", input: map[string]any{"command": "make"}, want: A},
		decideRow{name: "sandbox off asks", user: "[tools]\nautoApproveSandboxed = true\n", tool: "bash", input: map[string]any{"command": "make"}, want: R},
		decideRow{name: "sandbox without opt-in asks", sandbox: true, tool: "bash", input: map[string]any{"command": "make"}, want: R},
		decideRow{name: "sandbox never approves substitution", user: "[tools]\nautoApproveSandboxed = true\n", sandbox: true, tool: "bash", input: map[string]any{"command": "echo $(id)"}, want: R},
		decideRow{name: "sandbox deny still wins", user: "[tools]\nautoApproveSandboxed = true\ndeny = [\"bash(rm *)\"]\n", sandbox: true, tool: "bash", input: map[string]any{"command": "rm x"}, want: D},
		decideRow{name: "untrusted sandbox opt-in ignored", ws: "[tools]\nautoApproveSandboxed = true\n", sandbox: true, tool: "bash", input: map[string]any{"command": "make"}, want: R},
		decideRow{name: "sandbox only decides bash", user: "[tools]\nautoApproveSandboxed = true\n", sandbox: true, tool: "calculator", input: map[string]any{}, want: R},
	)
	rows = append(rows, frontmatterRows()...)
	rows = append(rows, auditRows()...)
	rows = append(rows, fileOpRows()...)
	rows = append(rows, gitRows()...)
	return rows
}

// Corpus 06, 07 and 12 and other frontmatter cases.
func frontmatterRows() []decideRow {
	A, R, D := Approve, RequireApproval, Deny
	fm06 := []FrontmatterOp{
		{Path: "tools.auto_approve", Op: "set", Values: []any{"$readonly"}, Line: 1},
		{Path: "tools.auto_approve", Op: "remove", Values: []any{"grep"}, Line: 2},
		{Path: "tools.auto_approve", Op: "append", Values: []any{"calculator"}, Line: 3},
	}
	fm07 := []FrontmatterOp{
		{Path: "tools.auto_approve", Op: "append", Values: []any{"bash"}, Line: 5},
		{Path: "tools.auto_approve", Op: "remove", Values: []any{"write"}, Line: 5},
	}
	fm12 := []FrontmatterOp{{Path: "tools.auto_approve", Op: "set", Values: []any{"bash", "write"}, Line: 1}}
	grep := map[string]any{"pattern": "TODO", "path": "src", "glob": nil, "limit": nil}
	calc := map[string]any{"expression": "17 * 23"}
	return []decideRow{
		{name: "06 untrusted calculator", fm: fm06, tool: "calculator", input: calc, want: R},
		{name: "06 untrusted grep", fm: fm06, tool: "grep", input: grep, want: R},
		{name: "06 untrusted read", fm: fm06, tool: "read", input: at("src/main.go"), want: A},
		{name: "06 untrusted write removed", fm: fm06, tool: "write", input: at("x"), want: R},
		{name: "06 trusted calculator", fm: fm06, trusted: true, tool: "calculator", input: calc, want: A},
		{name: "06 trusted grep", fm: fm06, trusted: true, tool: "grep", input: grep, want: R},
		{name: "06 trusted ls", fm: fm06, trusted: true, tool: "ls", input: at("."), want: A},
		{name: "07 untrusted write", fm: fm07, tool: "write", input: at("log.txt"), want: R},
		{name: "07 untrusted bash", fm: fm07, tool: "bash", input: map[string]any{"command": "date"}, want: R},
		{name: "07 trusted bash", fm: fm07, trusted: true, tool: "bash", input: map[string]any{"command": "date"}, want: A},
		{name: "07 trusted write", fm: fm07, trusted: true, tool: "write", input: at("log.txt"), want: R},
		{name: "12 untrusted bash", fm: fm12, tool: "bash", input: map[string]any{"command": "touch /tmp/chatls-corpus-pwned-1"}, want: R},
		{name: "12 untrusted write etc", fm: fm12, tool: "write", input: at("/tmp/../etc/chatls-corpus-pwned-2"), want: R},
		{name: "12 trusted write etc still not by presets", fm: fm12, trusted: true, tool: "write", input: at("/tmp/../etc/chatls-corpus-pwned-2"), want: R},
		{name: "frontmatter camelCase key", fm: []FrontmatterOp{{Path: "tools.autoApprove", Op: "remove", Values: []any{"read"}}}, tool: "read", input: at("src/main.go"), want: R},
		{name: "frontmatter deny untrusted applies", fm: []FrontmatterOp{{Path: "tools.deny", Op: "append", Values: []any{"read"}}}, tool: "read", input: at("src/main.go"), want: D},
		{name: "frontmatter remove preset", fm: []FrontmatterOp{{Path: "tools.auto_approve", Op: "remove", Values: []any{"$default"}}}, tool: "read", input: at("src/main.go"), want: R},
		{name: "frontmatter untrusted deny removal ignored", user: "[tools]\ndeny = [\"bash(rm *)\"]\n", fm: []FrontmatterOp{{Path: "tools.deny", Op: "remove", Values: []any{"bash(rm *)"}}}, tool: "bash", input: map[string]any{"command": "rm x"}, want: D},
		{name: "frontmatter trusted deny removal", user: "[tools]\ndeny = [\"bash(rm *)\"]\n", trusted: true, fm: []FrontmatterOp{{Path: "tools.deny", Op: "remove", Values: []any{"bash(rm *)"}}}, tool: "bash", input: map[string]any{"command": "rm x"}, want: R},
		{name: "frontmatter untrusted require_approval false ignored", fm: []FrontmatterOp{{Path: "tools.require_approval", Op: "set", Values: []any{false}}}, tool: "calculator", input: map[string]any{}, want: R},
		{name: "frontmatter prepend trusted", trusted: true, fm: []FrontmatterOp{{Path: "tools.auto_approve", Op: "prepend", Values: []any{"bash(make *)"}}}, tool: "bash", input: map[string]any{"command": "make"}, want: A},
		// A frontmatter that failed part-way: its intent is unknown, so every
		// call asks (even what the user config approves); denies still win.
		{name: "frontmatter failed: user approval asks", fmErr: "the frontmatter used too many steps", tool: "read", input: at("src/main.go"), want: R},
		{name: "frontmatter failed trusted: its approvals ignored", fmErr: "line 3: attempt to call a nil value", trusted: true, fm: fm07, tool: "bash", input: map[string]any{"command": "date"}, want: R},
		{name: "frontmatter failed: user deny still wins", fmErr: "x", user: "[tools]\ndeny = [\"read\"]\n", tool: "read", input: at("src/main.go"), want: D},
		{name: "frontmatter failed: its own deny applies", fmErr: "x", fm: []FrontmatterOp{{Path: "tools.deny", Op: "append", Values: []any{"read"}}}, tool: "read", input: at("src/main.go"), want: D},
		{name: "frontmatter failed: catch-all cannot approve", fmErr: "x", user: "[tools]\nrequireApproval = false\n", tool: "calculator", input: map[string]any{"expression": "1"}, want: R},
		{name: "frontmatter bad rule skipped", fm: []FrontmatterOp{{Path: "tools.auto_approve", Op: "append", Values: []any{"bash("}}}, tool: "read", input: at("src/main.go"), want: A},
	}
}

func TestDecideTable(t *testing.T) {
	f := newFixture(t)
	rows := decideRows()
	if len(rows) < 150 {
		t.Fatalf("the table has %d rows; issue 4 asks for at least 150", len(rows))
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			src := f.sources(t, r.user, r.ws, r.trusted, r.fm)
			src.SandboxActive = r.sandbox
			src.FrontmatterError = r.fmErr
			e, err := NewEngine(src, nil)
			if err != nil {
				t.Fatal(err)
			}
			input := map[string]any{}
			for k, v := range r.input {
				if s, ok := v.(string); ok {
					v = f.expand(s)
				}
				input[k] = v
			}
			v := e.Decide(context.Background(), Call{ID: "t1", Tool: r.tool, Input: input, DocPath: f.doc, WorkspaceRoot: f.root})
			if v.Decision != r.want {
				t.Errorf("%s %v: got %s, want %s\n%s", r.tool, input, v.Decision, r.want, v.Format())
			}
		})
	}
	t.Logf("%d decisions", len(rows))
}

func transfer(src, dst string) map[string]any {
	return map[string]any{"source": src, "destination": dst}
}

// fileOpRows: mkdir and copy follow write's rules ($default approves them
// inside the writable set; a copy's source is a read); delete and move are
// dangerous — only a rule that names them approves, never a preset or a
// wildcard; path deny rules stop them by effect (SPEC §5).
func fileOpRows() []decideRow {
	A, R, D := Approve, RequireApproval, Deny
	named := "[tools]\nautoApprove = [\"$standard\", \"delete(build/**)\", \"move\"]\n"
	wildcard := "[tools]\nautoApprove = [\"$standard\", \"*\"]\n"
	denies := "[tools]\ndeny = [\"write(secrets/**)\", \"read(private/**)\"]\n"
	return []decideRow{
		{name: "files: mkdir in workspace", tool: "mkdir", input: at("a/b"), want: A},
		{name: "files: mkdir outside", tool: "mkdir", input: at("/etc/x"), want: R},
		{name: "files: copy inside", tool: "copy", input: transfer("src/main.go", "src/copy.go"), want: A},
		{name: "files: copy from outside the workspace", tool: "copy", input: transfer("/etc/passwd", "src/p"), want: R},
		{name: "files: copy to outside the writable set", tool: "copy", input: transfer("src/main.go", "/etc/x"), want: R},
		{name: "files: copy of a secret", tool: "copy", input: transfer(".env", "env.txt"), want: R},
		{name: "files: delete under the default", tool: "delete", input: at("src/main.go"), want: R},
		{name: "files: move under the default", tool: "move", input: transfer("src/main.go", "src/b.go"), want: R},
		{name: "files: delete under $standard", user: cfgStandard, tool: "delete", input: at("src/main.go"), want: R},
		{name: "files: delete named by a rule", user: named, tool: "delete", input: at("build/out.o"), want: A},
		{name: "files: delete outside the named rule", user: named, tool: "delete", input: at("src/main.go"), want: R},
		{name: "files: move named bare, inside", user: named, tool: "move", input: transfer("src/main.go", "src/b.go"), want: A},
		{name: "files: move named bare, to outside", user: named, tool: "move", input: transfer("src/main.go", "/etc/b"), want: R},
		{name: "files: a wildcard does not name delete", user: wildcard, tool: "delete", input: at("src/main.go"), want: R},
		{name: "files: a wildcard does not name move", user: wildcard, tool: "move", input: transfer("src/a", "src/b"), want: R},
		{name: "files: write deny stops a move out", user: denies, tool: "move", input: transfer("secrets/key", "pub/key"), want: D},
		{name: "files: write deny stops a copy in", user: denies, tool: "copy", input: transfer("src/main.go", "secrets/x"), want: D},
		{name: "files: write deny stops a delete", user: denies, tool: "delete", input: at("secrets/key"), want: D},
		{name: "files: read deny stops a copy out", user: denies, tool: "copy", input: transfer("private/diary", "src/d"), want: D},
		{name: "files: write deny stops mkdir", user: denies, tool: "mkdir", input: at("secrets/new"), want: D},
	}
}

// gitRows: $git-read (in $readonly and $standard) approves looking;
// creating a branch needs git_branch(create); commit and push are
// dangerous — only a rule naming them.
func gitRows() []decideRow {
	A, R := Approve, RequireApproval
	branch := "[tools]\nautoApprove = [\"$standard\", \"git_branch(create)\", \"git_commit\"]\n"
	wildcard := "[tools]\nautoApprove = [\"*\"]\n"
	return []decideRow{
		{name: "git: status under the default", tool: "git_status", input: map[string]any{}, want: R},
		{name: "git: status under $readonly", user: cfgReadonly, tool: "git_status", input: map[string]any{}, want: A},
		{name: "git: log under $standard", user: cfgStandard, tool: "git_log", input: map[string]any{"limit": 5.0}, want: A},
		{name: "git: listing branches under $standard", user: cfgStandard, tool: "git_branch", input: map[string]any{}, want: A},
		{name: "git: creating a branch under $standard", user: cfgStandard, tool: "git_branch", input: map[string]any{"create": true, "name": "x"}, want: R},
		{name: "git: creating a branch with git_branch(create)", user: branch, tool: "git_branch", input: map[string]any{"create": true, "name": "x"}, want: A},
		{name: "git: commit under $standard", user: cfgStandard, tool: "git_commit", input: map[string]any{"message": "m", "files": []any{"a"}}, want: R},
		{name: "git: commit named by a rule", user: branch, tool: "git_commit", input: map[string]any{"message": "m", "files": []any{"a"}}, want: A},
		{name: "lsp: hover under $readonly", user: cfgReadonly, tool: "hover", input: map[string]any{"path": "main.go", "line": 1.0, "column": 1.0}, want: A},
		{name: "lsp: diagnostics under $standard", user: cfgStandard, tool: "diagnostics", input: at("main.go"), want: A},
		{name: "lsp: references under the default", tool: "references", input: map[string]any{"path": "main.go", "line": 1.0, "column": 1.0}, want: R},
		{name: "git: a wildcard does not name git_push", user: wildcard, tool: "git_push", input: map[string]any{}, want: R},
	}
}

// The trace of a dangerous tool says so, whatever decided it.
func TestDangerousToolsSaySoInTheTrace(t *testing.T) {
	f := newFixture(t)
	e, err := NewEngine(f.sources(t, "[tools]\nautoApprove = [\"delete\"]\n", "", false, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	v := e.Decide(context.Background(), Call{ID: "t", Tool: "delete", Input: at("src/main.go"), DocPath: f.doc, WorkspaceRoot: f.root})
	if v.Decision != Approve || !strings.Contains(v.Format(), "delete is dangerous: only a rule that names it approves it") {
		t.Fatalf("%s", v.Format())
	}
	v = e.Decide(context.Background(), Call{ID: "t", Tool: "read", Input: at("src/main.go"), DocPath: f.doc, WorkspaceRoot: f.root})
	if strings.Contains(v.Format(), "dangerous") {
		t.Fatalf("%s", v.Format())
	}
}
