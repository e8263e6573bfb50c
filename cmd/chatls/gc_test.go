package main

import (
	"runtime/debug"
	"testing"
)

func TestServerGCPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tuneGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != serverGCPercent {
		t.Errorf("GOGC unset: the server collects at %d, want %d", got, serverGCPercent)
	}
	tuneGC(func(k string) string { return map[string]string{"GOGC": "200"}[k] })
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set by the user: changed to %d", got)
	}
}
