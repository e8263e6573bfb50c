// Package cputime measures how the CPU time and memory of a piece of work
// grow with its input, for tests that must tell linear from quadratic on
// a loaded machine: CPU time from getrusage does not grow when other
// processes take the cores (wall time does: a linear parse once looked x38).
package cputime

import (
	"runtime"
	"runtime/debug"
	"syscall"
	"time"
)

// Process is the user and system time this process has used.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Cost is the work of one run of f: the least CPU time of a few runs, and
// the bytes it allocated. Each run starts from a collected heap with the
// collector off, so one run's garbage is never collected (and counted)
// during the next.
func Cost(f func()) (cpu time.Duration, allocated uint64) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	cpu = time.Duration(1 << 62)
	for range 3 {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := Process()
		f()
		cpu = min(cpu, Process()-start)
		runtime.ReadMemStats(&after)
		allocated = after.TotalAlloc - before.TotalAlloc
	}
	return cpu, allocated
}
