package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chatls/chatls/internal/fspath"
)

// sandboxView is what bubblewrap mounts over the read-only root besides the
// writable set (SPEC §5): an empty read-only file over each sensitive file,
// an empty read-only directory over each sensitive directory, and every
// .git directory or file of the writable set bound read-only again.
//
// Sensitive is found two ways:
//   - by name: the names of sensitiveName anywhere in the writable set, and
//     in the home directory the fixed home paths (homeSecrets) plus those
//     names down to homeScanDepth levels;
//   - by inode: a regular file with more than one link is masked when any
//     name of it that the scan found is sensitive, and, inside the writable
//     set, also when the scan did not find all of its links there (a name
//     outside the writable set cannot be proven harmless, so the file counts
//     as outside: masked, neither readable nor writable).
//
// Symbolic links in the writable set are resolved: a link to a sensitive
// name outside gets that target masked. Links created during a call cannot
// reach a mount point on another mount (hard links fail with EXDEV across
// bind mounts), so the scan before the call is enough for hard links; a
// symbolic link created during a call to an unscanned sensitive file
// outside the writable set and home is a known limit (docs/policy.md).
type sandboxView struct {
	maskFiles []string
	maskDirs  []string
	readOnly  []string // .git directories and files inside the writable set
}

// homeScanDepth is how deep the home directory is searched by name (the
// writable set is searched entirely): ~/.config/gcloud/credentials.db is 3.
const homeScanDepth = 3

// homeSecrets are paths under the home directory masked whatever their
// names: git's user configuration, chatls's and the trusted editors'
// settings, shell start-up files and histories, and common token stores.
var homeSecrets = []string{
	".gitconfig", ".config/git", ".git-credentials",
	".config/chatls", ".local/state/chatls",
	".config/Code/User", ".config/Code - OSS/User", ".config/VSCodium/User", ".config/Cursor/User",
	".config/zed", ".config/helix", ".config/nvim", ".vimrc", ".vim", ".emacs", ".emacs.d", ".config/emacs",
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
	".zprofile", ".zlogin", ".zlogout", ".config/fish", ".inputrc",
	".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history", ".lesshst",
	".config/gh", ".docker", ".kube", ".npmrc", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml",
	".config/gcloud", ".azure", ".password-store", ".local/share/keyrings", ".terraform.d",
}

// sensitiveName reports whether a file or directory name is a secret by
// name (SPEC §4's list, chatls's workspace configuration, and a few more
// key files).
func sensitiveName(name string) bool {
	n := strings.ToLower(name)
	switch {
	case strings.HasPrefix(n, ".env"),
		n == ".ssh", n == ".aws", n == ".gnupg", n == ".netrc", n == "_netrc",
		strings.Contains(n, "credentials"),
		strings.HasPrefix(n, "id_rsa"), strings.HasPrefix(n, "id_ed25519"),
		strings.HasPrefix(n, "id_ecdsa"), strings.HasPrefix(n, "id_dsa"),
		n == ".chatls.toml":
		return true
	}
	return false
}

// scanEntry is one path the scan found worth a mount.
type scanEntry struct {
	path  string
	dir   bool
	ino   fileID
	links uint64
}

type fileID struct{ dev, ino uint64 }

// treeScan is the result of scanning one directory tree. It is reused while
// none of the directories it read changed (a file created, removed or
// renamed): watch says so for those it watches (sandbox_watch.go), dirs
// holds the modification time of the others.
type treeScan struct {
	secrets []scanEntry // sensitive by name (files and directories)
	gits    []string
	linked  []scanEntry // regular files with more than one link, not sensitive by name
	watch   *dirWatch
	dirs    map[string]time.Time
	gen     uint64
	full    bool // the whole tree (the writable set), not depth-limited
}

var scanCache struct {
	sync.Mutex
	trees map[string]*treeScan // key: root + "\x00" + depth
	gen   uint64
}

// InvalidateSandboxScans forgets every cached scan: called after a call ran
// outside the sandbox, which may have made links the directory times do not
// show (a new link elsewhere to a file inside).
func InvalidateSandboxScans() {
	scanCache.Lock()
	scanCache.gen++
	for _, ts := range scanCache.trees {
		ts.watch.close()
	}
	scanCache.trees = nil
	scanCache.Unlock()
}

// scanTree scans root to depth (-1: all), reusing a cached scan while every
// directory it read is unchanged.
func scanTree(root string, depth int, skip []string) *treeScan {
	key := root + "\x00" + strings.Repeat("+", depth+1) + "\x00" + strings.Join(skip, "\x00")
	scanCache.Lock()
	cached := scanCache.trees[key]
	gen := scanCache.gen
	scanCache.Unlock()
	if cached != nil && cached.gen == gen && cached.unchanged() {
		return cached
	}
	ts := &treeScan{watch: newDirWatch(), dirs: map[string]time.Time{}, gen: gen, full: depth < 0}
	ts.walk(root, depth, skip)
	scanCache.Lock()
	if scanCache.trees == nil {
		scanCache.trees = map[string]*treeScan{}
	}
	if scanCache.gen == gen {
		if old := scanCache.trees[key]; old != nil {
			old.watch.close()
		}
		scanCache.trees[key] = ts
	} else {
		ts.watch.close() // invalidated meanwhile: not kept, so not watched
	}
	scanCache.Unlock()
	return ts
}

func (ts *treeScan) unchanged() bool {
	if ts.watch.changed() {
		return false
	}
	for dir, mt := range ts.dirs {
		fi, err := os.Lstat(dir)
		if err != nil || !fi.ModTime().Equal(mt) {
			return false
		}
	}
	return true
}

func (ts *treeScan) walk(dir string, depth int, skip []string) {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return
	}
	// Watched before it is read: a change in between is then seen too.
	if !ts.watch.add(dir, fi) {
		ts.dirs[dir] = fi.ModTime()
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if slices.Contains(skip, p) {
			continue
		}
		typ := e.Type()
		if e.Name() == ".git" && ts.full {
			ts.gits = append(ts.gits, p)
			if typ.IsDir() {
				// Hooks, config and objects stay readable (read-only); a
				// secret named inside still gets masked.
				ts.walk(p, depth-1, skip)
			}
			continue
		}
		if sensitiveName(e.Name()) {
			ent := scanEntry{path: p, dir: typ.IsDir()}
			if typ.IsRegular() {
				ent.ino, ent.links = statID(p)
			}
			if typ&os.ModeSymlink != 0 {
				ts.addLinkTarget(p, true)
				continue
			}
			ts.secrets = append(ts.secrets, ent)
			continue
		}
		switch {
		case typ.IsDir():
			if depth != 0 {
				ts.walk(p, depth-1, skip)
			}
		case typ.IsRegular():
			if id, links := statID(p); links > 1 {
				ts.linked = append(ts.linked, scanEntry{path: p, ino: id, links: links})
			}
		case typ&os.ModeSymlink != 0 && ts.full:
			ts.addLinkTarget(p, false)
		}
	}
}

// addLinkTarget masks the target of a symbolic link of the writable set when
// the target is sensitive by name (or the link's own name is).
func (ts *treeScan) addLinkTarget(link string, sensitive bool) {
	target, err := filepath.EvalSymlinks(link)
	if err != nil {
		return // dangling: nothing to read
	}
	if !sensitive {
		for _, c := range strings.Split(target, "/") {
			if c != "" && sensitiveName(c) {
				sensitive = true
				break
			}
		}
	}
	if !sensitive {
		return
	}
	fi, err := os.Stat(target)
	if err != nil {
		return
	}
	ent := scanEntry{path: target, dir: fi.IsDir()}
	if fi.Mode().IsRegular() {
		ent.ino, ent.links = statID(target)
	}
	ts.secrets = append(ts.secrets, ent)
}

func statID(p string) (fileID, uint64) {
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return fileID{}, 0
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, uint64(st.Nlink)
}

// planSandboxView scans the writable set and the home directory.
func planSandboxView(writable []string, home string) sandboxView {
	roots := outermost(writable)
	var v sandboxView
	secretIDs := map[fileID]bool{}
	var linked []scanEntry
	insideNames := map[fileID]uint64{}
	for _, r := range roots {
		ts := scanTree(r, -1, nil)
		for _, s := range ts.secrets {
			v.add(s)
			if s.links > 1 {
				secretIDs[s.ino] = true
				insideNames[s.ino]++
			}
		}
		v.readOnly = append(v.readOnly, ts.gits...)
		for _, l := range ts.linked {
			linked = append(linked, l)
			insideNames[l.ino]++
		}
	}
	// chatls's own configuration and state wherever XDG puts them.
	for _, xdg := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME"} {
		if d := os.Getenv(xdg); filepath.IsAbs(d) {
			if fi, err := os.Stat(filepath.Join(d, "chatls")); err == nil {
				v.add(scanEntry{path: filepath.Join(d, "chatls"), dir: fi.IsDir()})
			}
		}
	}
	if home != "" && home != "/" {
		for _, rel := range homeSecrets {
			p := filepath.Join(home, rel)
			if fi, err := os.Lstat(p); err == nil {
				if fi.Mode()&os.ModeSymlink != 0 {
					if t, err := filepath.EvalSymlinks(p); err == nil {
						p = t
						fi, err = os.Stat(p)
						if err != nil {
							continue
						}
					} else {
						continue
					}
				}
				v.add(scanEntry{path: p, dir: fi.IsDir()})
			}
		}
		if !slices.ContainsFunc(roots, func(r string) bool { return fspath.Within(home, r) }) {
			ts := scanTree(home, homeScanDepth, roots)
			for _, s := range ts.secrets {
				v.add(s)
				if s.links > 1 {
					secretIDs[s.ino] = true
				}
			}
			for _, l := range ts.linked {
				if secretIDs[l.ino] {
					v.add(l)
				}
			}
		}
	}
	for _, l := range linked {
		if secretIDs[l.ino] || insideNames[l.ino] < l.links {
			v.add(l)
		}
	}
	v.maskFiles = dropNested(v.maskFiles, v.maskDirs)
	v.maskDirs = dropNested(v.maskDirs, v.maskDirs)
	v.readOnly = dropNested(v.readOnly, v.maskDirs)
	return v
}

func (v *sandboxView) add(e scanEntry) {
	if e.dir {
		v.maskDirs = append(v.maskDirs, e.path)
	} else {
		v.maskFiles = append(v.maskFiles, e.path)
	}
}

// outermost sorts dirs and drops those inside another.
func outermost(dirs []string) []string {
	out := slices.Clone(dirs)
	slices.Sort(out)
	out = slices.Compact(out)
	return dropNested(out, out)
}

// dropNested removes duplicates and the paths strictly inside one of dirs
// (a mount below a masked directory is hidden anyway).
func dropNested(paths, dirs []string) []string {
	slices.Sort(paths)
	paths = slices.Compact(paths)
	out := paths[:0]
	for _, p := range paths {
		inside := false
		for _, d := range dirs {
			if p != d && fspath.Within(p, d) {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, p)
		}
	}
	return out
}
