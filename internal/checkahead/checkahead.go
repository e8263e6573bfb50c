// Package checkahead begins the parse of `chatls check FILE` while the
// program is still initialising. Package initialisation takes a few
// milliseconds on one core (most of it the provider SDKs' packages, which
// check never uses); the parser's packages are ready well before, so the
// parse of a large file runs on the other core meanwhile. main takes the
// parse when runCheck reaches the file (Take).
//
// It begins only for exactly one file argument that is mapped
// (mapped.Mappable), the case where the parse is most of the time; any
// other command line, or any trouble, leaves check to do everything as
// usual.
package checkahead

import (
	"os"
	"runtime/debug"
	"syscall"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/mapped"
)

// begun is the parse begun for the file of `chatls check FILE`; nil when
// none was, or once taken.
var begun *parse

type parse struct {
	name string
	file *mapped.File
	doc  *chatdoc.Document // nil when the parse did not end well
	done chan struct{}
}

func init() { begun = begin(os.Args) }

// begin starts the parse for the command line args (os.Args), or returns
// nil when it is not `chatls check FILE` of a file to map.
func begin(args []string) *parse {
	name, ok := fileToCheck(args)
	if !ok {
		return nil
	}
	m := mapFile(name)
	if m == nil {
		return nil
	}
	BatchSettings() // before the parse grows the heap
	p := &parse{name: name, file: m, done: make(chan struct{})}
	go p.run()
	return p
}

// BatchSettings sets what a one-shot check runs with, and returns what
// restores the settings before. Garbage collection only costs time in a
// batch, so it runs only if the heap grows past a generous limit.
func BatchSettings() (restore func()) {
	limit := debug.SetMemoryLimit(1 << 30)
	percent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// fileToCheck is FILE when the command line is `chatls check FILE`.
func fileToCheck(args []string) (string, bool) {
	if len(args) != 3 || args[1] != "check" {
		return "", false
	}
	return args[2], true
}

// mapFile maps the file if it is one check maps, else nil. It asks
// before it opens, and opens without waiting: opening a named pipe would
// wait for a writer, and take from check the one opening the writer
// serves.
func mapFile(name string) *mapped.File {
	if info, err := os.Stat(name); err != nil || !mapped.Mappable(info) {
		return nil
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	if info, err := f.Stat(); err == nil && mapped.Mappable(info) { // still: it may have been replaced
		if m, err := mapped.Map(f, info); err == nil {
			return m
		}
	}
	f.Close()
	return nil
}

// run parses under the mapping's guard. Whatever goes wrong (the file
// changed, or a bug) leaves doc nil: check then parses again on its own,
// where a bug surfaces with its own stack.
func (p *parse) run() {
	defer close(p.done)
	defer func() {
		if recover() != nil {
			p.doc = nil
		}
	}()
	if p.file.Guard(func() { p.doc = chatdoc.ParseOnce(p.file.Text()) }) != nil {
		p.doc = nil
	}
}

// Take is the mapped file and its parse when check's parse of name began
// during initialisation and ended well; the caller then owns the file.
// It waits for a parse still running. ok is false otherwise, and the
// caller opens and parses name itself.
func Take(name string) (m *mapped.File, doc *chatdoc.Document, ok bool) {
	p := begun
	if p == nil || p.name != name {
		return nil, nil, false
	}
	begun = nil
	<-p.done
	if p.doc == nil {
		p.file.Close()
		return nil, nil, false
	}
	return p.file, p.doc, true
}
