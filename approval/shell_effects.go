package approval

import (
	"regexp"
	"strings"
)

// writerSpec says which arguments of a file-changing command are the files
// it changes. Only these programs are known; others rely on their rules.
type writerSpec struct {
	valued   string // short flags that take a value
	skip     int    // leading operands that are not files (chmod MODE)
	lastOnly bool   // cp/ln/install: only the destination is written
}

var writers = map[string]writerSpec{
	"rm": {}, "rmdir": {}, "unlink": {}, "shred": {valued: "nsu"}, "touch": {valued: "dtr"},
	"mkdir": {valued: "m"}, "mkfifo": {valued: "m"}, "mknod": {valued: "m"}, "truncate": {valued: "sr"},
	"mv": {valued: "tS"}, "cp": {valued: "tS", lastOnly: true}, "ln": {valued: "tS", lastOnly: true},
	"install": {valued: "tSmgo", lastOnly: true}, "chmod": {skip: 1}, "chown": {skip: 1}, "chgrp": {skip: 1},
	"tee": {}, "sed": {valued: "efl"}, "dd": {},
	"curl": {}, "wget": {}, "sort": {valued: "otSkT"},
}

// effects records the files a known writer changes.
func (w *shellWalker) effects(base string, args []word, sc *scope) {
	spec, ok := writers[base]
	if !ok {
		return
	}
	switch base {
	case "dd":
		for _, a := range args {
			if strings.HasPrefix(a.text, "of=") {
				t := a
				t.text = strings.TrimPrefix(a.text, "of=")
				w.write(t, sc, "dd of=")
			}
		}
		return
	case "curl", "wget":
		w.downloadTargets(base, args, sc)
		return
	case "sort":
		for i, a := range args {
			if a.text == "-o" && i+1 < len(args) {
				w.write(args[i+1], sc, "sort -o")
			} else if strings.HasPrefix(a.text, "--output=") {
				t := a
				t.text = strings.TrimPrefix(a.text, "--output=")
				w.write(t, sc, "sort -o")
			}
		}
		return
	}
	flags, operands := splitOptions(args, spec.valued)
	if base == "sed" {
		w.sed(flags, operands, sc)
		return
	}
	if base == "chmod" || base == "chown" || base == "chgrp" {
		if _, ok := flagValue(flags, "--reference"); ok {
			spec.skip = 0
		}
	}
	if dir, ok := flagValue(flags, "-t", "--target-directory"); ok {
		w.write(dir, sc, base+" -t")
		if base != "mv" {
			return
		}
		spec.lastOnly = false
	}
	if base == "install" {
		if _, ok := flagValue(flags, "-d", "--directory"); ok {
			spec.lastOnly = false
		}
	}
	if len(operands) <= spec.skip {
		return
	}
	targets := operands[spec.skip:]
	if spec.lastOnly {
		if len(targets) == 1 && base == "ln" {
			// ln TARGET makes a link named after it in the current directory.
			t := targets[0]
			t.text = lastElem(t.text)
			targets = []word{t}
		} else if len(targets) >= 2 {
			targets = targets[len(targets)-1:]
		} else {
			return
		}
	}
	for _, t := range targets {
		w.write(t, sc, base)
	}
}

func (w *shellWalker) downloadTargets(base string, args []word, sc *scope) {
	short := "-o"
	long := "--output"
	if base == "wget" {
		short, long = "-O", "--output-document"
	}
	for i, a := range args {
		var t word
		switch {
		case a.text == short && i+1 < len(args):
			t = args[i+1]
		case strings.HasPrefix(a.text, long+"="):
			t = a
			t.text = strings.TrimPrefix(a.text, long+"=")
		case a.text == long && i+1 < len(args):
			t = args[i+1]
		case base == "curl" && (a.text == "-O" || a.text == "--remote-name" || a.text == "--remote-name-all"):
			w.write(word{dyn: true}, sc, "curl -O")
			continue
		default:
			continue
		}
		if t.text != "-" {
			w.write(t, sc, base+" "+short)
		}
	}
}

// sed: -i edits its files in place; the e and w commands run commands and
// write files from inside the script.
func (w *shellWalker) sed(flags []flagVal, operands []word, sc *scope) {
	var scripts []word
	for _, f := range flags {
		if f.name == "-e" || f.name == "--expression" {
			scripts = append(scripts, f.value)
		}
		if f.name == "-f" || f.name == "--file" {
			w.opaque("sed -f runs a script file whose contents are not checked")
		}
	}
	files := operands
	if len(scripts) == 0 && len(operands) > 0 {
		scripts, files = operands[:1], operands[1:]
	}
	for _, s := range scripts {
		if s.dyn || sedRunsOrWrites(s.text) {
			w.opaque("the sed script may run commands or write files (e/w commands)")
		}
	}
	inPlace := false
	for _, f := range flags {
		if f.name == "-i" || f.name == "--in-place" {
			inPlace = true
		}
	}
	if !inPlace {
		return
	}
	for _, t := range files {
		w.write(t, sc, "sed -i")
	}
}

var (
	sedCommand = regexp.MustCompile(`(?m)(^|[;{}\n])\s*(\d+|\$|/[^/]*/)?(,\s*(\d+|\$|/[^/]*/))?\s*!?\s*[ewW]`)
)

// sedRunsOrWrites looks for e/w/W commands and s///e or s///w flags.
func sedRunsOrWrites(script string) bool {
	if sedCommand.MatchString(script) {
		return true
	}
	for i := 0; i < len(script); i++ {
		if script[i] != 's' || i+1 >= len(script) {
			continue
		}
		if i > 0 && isWordByte(script[i-1]) {
			continue
		}
		d := script[i+1]
		if d == '\\' || d == '\n' || isWordByte(d) || d == ' ' {
			continue
		}
		j, seen := i+2, 0
		for j < len(script) && seen < 2 {
			switch script[j] {
			case '\\':
				j++
			case d:
				seen++
			}
			j++
		}
		if seen < 2 {
			continue
		}
		for j < len(script) && isWordByte(script[j]) {
			if script[j] == 'e' || script[j] == 'w' || script[j] == 'W' {
				return true
			}
			j++
		}
		i = j - 1
	}
	return false
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// splitOptions separates options (with values) from operands; "--" ends options.
func splitOptions(args []word, valued string) (flags []flagVal, operands []word) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if a.dyn || len(t) < 2 || t[0] != '-' {
			operands = append(operands, a)
			continue
		}
		if t == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if strings.HasPrefix(t, "--") {
			key, val, _ := strings.Cut(t, "=")
			flags = append(flags, flagVal{name: key, value: word{text: val}})
			continue
		}
		for j := 1; j < len(t); j++ {
			c := t[j]
			fv := flagVal{name: "-" + string(c)}
			if strings.IndexByte(valued, c) >= 0 {
				if j+1 < len(t) {
					fv.value = word{text: t[j+1:]}
				} else if i+1 < len(args) {
					i++
					fv.value = args[i]
				}
				flags = append(flags, fv)
				break
			}
			flags = append(flags, fv)
		}
	}
	return flags, operands
}

func flagValue(flags []flagVal, names ...string) (word, bool) {
	f, ok := hasFlag(flags, names...)
	return f.value, ok
}

func lastElem(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
