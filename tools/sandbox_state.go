package tools

import (
	"slices"
	"sync"
)

// SandboxState tracks, for one session, whether each bubblewrap binary in
// use can start a sandbox, and which problems the user was already told
// about. Safe for concurrent use.
type SandboxState struct {
	mu       sync.Mutex
	problems map[string]string // bubblewrap path → why it cannot run, "" when it works
	reported map[string]bool
}

// Check probes the bubblewrap binaries of every configuration that enables
// the sandbox, after a change of settings. A binary that was not in use at
// the last check (the sandbox was just turned on, or sandbox.bwrap changed)
// is probed afresh, so one installed since is seen; the others keep their
// cached answer. It returns the problems not reported before, sorted: each
// is told once per session.
func (st *SandboxState) Check(bwraps []string) (news []string) {
	problems := map[string]string{}
	for _, bwrap := range bwraps {
		if _, done := problems[bwrap]; done {
			continue
		}
		st.mu.Lock()
		_, inUse := st.problems[bwrap]
		st.mu.Unlock()
		probe := SandboxAvailable
		if !inUse {
			probe = ProbeSandbox
		}
		problems[bwrap] = ""
		if err := probe(bwrap); err != nil {
			problems[bwrap] = err.Error()
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.problems = problems
	if st.reported == nil {
		st.reported = map[string]bool{}
	}
	for _, p := range problems {
		if p != "" && !st.reported[p] {
			st.reported[p] = true
			news = append(news, p)
		}
	}
	slices.Sort(news)
	return news
}

// Problem is why bubblewrap at bwrap cannot run, or "". A binary not
// checked yet (a change whose Check is still to come) is probed now; the
// answer is cached.
func (st *SandboxState) Problem(bwrap string) string {
	st.mu.Lock()
	p, probed := st.problems[bwrap]
	st.mu.Unlock()
	if probed {
		return p
	}
	if err := SandboxAvailable(bwrap); err != nil {
		return err.Error()
	}
	return ""
}

// Known is what Problem would say, without probing: probed is false when
// no check or probe of bwrap has answered yet.
func (st *SandboxState) Known(bwrap string) (problem string, probed bool) {
	st.mu.Lock()
	p, probed := st.problems[bwrap]
	st.mu.Unlock()
	if probed {
		return p, true
	}
	path := bwrap
	if path == "" {
		path = defaultBwrap
	}
	if v, ok := sandboxProbes.Load(path); ok {
		if err, _ := v.(error); err != nil {
			return err.Error(), true
		}
		return "", true
	}
	return "", false
}

// Report says whether problem is news to the user, and marks it told: each
// is told once per session.
func (st *SandboxState) Report(problem string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.reported == nil {
		st.reported = map[string]bool{}
	}
	if st.reported[problem] {
		return false
	}
	st.reported[problem] = true
	return true
}
