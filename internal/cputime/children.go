package cputime

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// WithChildren is the CPU time (user+system) this process and its children
// have used so far: reaped children by getrusage, live ones (the spare tool
// supervisor, which runs bash calls and reaps them) from /proc in clock
// ticks. On a shared machine wall time per call swings with the load; CPU
// time per call does much less.
func WithChildren() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	total := time.Duration(0)
	for _, tv := range []syscall.Timeval{self.Utime, self.Stime, kids.Utime, kids.Stime} {
		total += time.Duration(tv.Nano())
	}
	return total + liveChildren()
}

// liveChildren sums utime, stime, cutime and cstime of our live children
// (clock ticks of 10 ms: meaningful over a whole benchmark, not one call).
func liveChildren() time.Duration {
	tasks, _ := os.ReadDir("/proc/self/task")
	var total time.Duration
	for _, t := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		for _, pid := range strings.Fields(string(b)) {
			stat, err := os.ReadFile("/proc/" + pid + "/stat")
			if err != nil {
				continue
			}
			s := string(stat)
			// After "(comm)": state is field 3, utime..cstime fields 14-17.
			f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
			for _, v := range f[11:15] {
				ticks, _ := strconv.Atoi(v)
				total += time.Duration(ticks) * 10 * time.Millisecond
			}
		}
	}
	return total
}
