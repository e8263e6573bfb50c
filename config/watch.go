package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// debounce groups the bursts editors produce (write, chmod, rename) into one change.
const debounce = 100 * time.Millisecond

// Watcher reports changes to configuration files. It watches their
// directories, not the files: editors save by replacing the file, which a
// file watch would lose. Directories that don't exist yet are watched
// through their nearest existing ancestor and added when they appear.
type Watcher struct {
	fs       *fsnotify.Watcher
	onChange func(path string)
	files    map[string]bool // cleaned absolute paths
	done     chan struct{}
	wg       sync.WaitGroup

	mu      sync.Mutex
	timers  map[string]*time.Timer
	watched map[string]bool
	closed  bool
}

// Watch starts watching paths; onChange(path) runs on its own goroutine
// about 100 ms after the last event for that file (also for deletion).
func Watch(paths []string, onChange func(path string)) (*Watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &Watcher{fs: fw, onChange: onChange, files: map[string]bool{}, done: make(chan struct{}),
		timers: map[string]*time.Timer{}, watched: map[string]bool{}}
	for _, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			w.files[filepath.Clean(abs)] = true
		}
	}
	if err := w.addWatches(); err != nil {
		fw.Close()
		return nil, err
	}
	w.wg.Add(1)
	go w.loop()
	return w, nil
}

// addWatches watches each file's directory, or its nearest existing ancestor.
func (w *Watcher) addWatches() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var errs []error
	for f := range w.files {
		dir := filepath.Dir(f)
		for {
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
		if w.watched[dir] {
			continue
		}
		if err := w.fs.Add(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		w.watched[dir] = true
	}
	return errors.Join(errs...)
}

func (w *Watcher) loop() {
	defer w.wg.Done()
	for {
		select {
		case <-w.done:
			return
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			w.handle(ev)
		case _, ok := <-w.fs.Errors:
			// Overflow and similar: nothing to recover; keep draining.
			if !ok {
				return
			}
		}
	}
}

func (w *Watcher) handle(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	if w.files[name] {
		w.schedule(name)
		return
	}
	// A directory on the way to a watched file appeared: watch deeper and
	// report files that came with it.
	if ev.Has(fsnotify.Create) {
		for f := range w.files {
			if strings.HasPrefix(f, name+string(filepath.Separator)) {
				_ = w.addWatches()
				if _, err := os.Stat(f); err == nil {
					w.schedule(f)
				}
			}
		}
	}
}

func (w *Watcher) schedule(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if t, ok := w.timers[path]; ok {
		t.Reset(debounce)
		return
	}
	w.timers[path] = time.AfterFunc(debounce, func() {
		w.mu.Lock()
		delete(w.timers, path)
		closed := w.closed
		w.mu.Unlock()
		if !closed {
			w.onChange(path)
		}
	})
}

// Close stops watching; no onChange starts after it returns.
func (w *Watcher) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	for _, t := range w.timers {
		t.Stop()
	}
	w.mu.Unlock()
	close(w.done)
	err := w.fs.Close()
	w.wg.Wait()
	return err
}
