package main

import (
	"os"

	"github.com/chatls/chatls/internal/mapped"
)

// openText opens a file for check: a regular file of at least mapped.Min
// bytes mapped, any other read (opened once: a pipe can be opened only
// once).
func openText(name string) (m *mapped.File, text []byte, err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if mapped.Mappable(info) {
		if m, err := mapped.Map(f, info); err == nil { // else a file system that cannot map: read it
			return m, nil, nil
		}
	}
	defer f.Close()
	text, err = readOpen(f, info)
	return nil, text, err
}
