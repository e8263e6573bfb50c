package main

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// parallelReadMin is the size from which readWhole reads in two halves at
// once: below it a second goroutine costs more than it saves.
const parallelReadMin = 1 << 20

// readWhole is os.ReadFile for `chatls check`, reading a large file's two
// halves on two cores: most of the time of reading a 10 MB file is the
// kernel filling fresh pages, and both halves can do that at once.
func readWhole(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readOpen(f, info)
}

// readOpen is readWhole of a file already open and asked for its info (a
// pipe can be opened only once).
func readOpen(f *os.File, info os.FileInfo) ([]byte, error) {
	size := info.Size()
	if !info.Mode().IsRegular() || size < parallelReadMin || int64(int(size)) != size {
		return io.ReadAll(f)
	}
	buf := make([]byte, size)
	half := size / 2
	var wg sync.WaitGroup
	var firstErr error
	wg.Go(func() { _, firstErr = f.ReadAt(buf[:half], 0) })
	_, secondErr := f.ReadAt(buf[half:], half)
	wg.Wait()
	if err := halvesErr(firstErr, secondErr); err != nil {
		return nil, err
	}
	// The file may have grown since Stat: read the rest as os.ReadFile would.
	rest, err := io.ReadAll(io.NewSectionReader(f, size, 1<<62))
	if err != nil {
		return nil, err
	}
	return append(buf, rest...), nil
}

// halvesErr is the first error of the two halves; a file that shrank since
// Stat ends one of them early.
func halvesErr(first, second error) error {
	for _, err := range []error{first, second} {
		if err == io.EOF {
			return fmt.Errorf("the file shrank while being read")
		}
		if err != nil {
			return err
		}
	}
	return nil
}
