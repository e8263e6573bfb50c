package server

import (
	"context"
	"os"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/server/surface"
	"github.com/chatls/chatls/tools"
)

// hover shows a tool use's or placeholder's description, full input, the
// policy decision with its trace, and the status (SPEC §3).
func (s *Server) hover(ctx context.Context, p protocol.HoverParams, snap *snapshot) (any, error) {
	doc := snap.doc
	offset := offsetAt(doc, p.Position, snap.enc)
	r, u := blockAt(doc, offset)
	if u == nil {
		return nil, nil
	}
	ds, _, _, _ := s.current(snap.uri)
	info := surface.HoverInfo{Input: u.Input, RawInput: u.RawInput, Status: "no result yet"}
	if t, ok := s.registry.Lookup(u.Name); ok {
		info.Tool, info.Known = t.Definition(), true
		info.Annotations = info.Tool.Annotations
	} else {
		info.Tool = tools.Definition{Name: u.Name}
		info.Loading = s.toolSet.MayProvide(u.Name)
	}
	if r != nil {
		info.Status = string(r.Status)
		if info.Status == "" {
			info.Status = "done"
		}
	}
	if ds != nil {
		v := s.decide(ds, doc, u, "")
		info.Decision, info.Trace = decisionLine(v), v.Format()
		if status := s.sessionTimes(ds, u.ID, &info); status != "" {
			info.Status = status
		}
		if problem := s.sandboxProblemFor(ds.path); problem != "" && u.Name == "bash" {
			info.Trace += "\nsandbox: bubblewrap cannot run (" + problem + "); bash calls ask for approval"
		}
	}
	span := u.Span
	if r != nil && r.Span.Contains(offset) {
		span = r.Span
	}
	return map[string]any{
		"contents": map[string]any{"kind": "markdown", "value": surface.HoverMarkdown(info)},
		"range":    lspRange(doc, span, snap.enc),
	}, nil
}

// sessionTimes fills the execution times known for a call and returns its
// live status ("queued", "running"), or "" when it is not running (the
// document's status then stands). A queued run shows when it was taken;
// a running one when it started, and when it was queued if it had to wait
// for a slot. A finished run's start and finish come from the journal.
func (s *Server) sessionTimes(ds *docState, id string, info *surface.HoverInfo) string {
	s.mu.Lock()
	run, ok := ds.ledger.Run(id)
	s.mu.Unlock()
	switch {
	case ok && run.Phase == cycle.Running:
		info.Started = &run.Started
		if run.Waited {
			info.Queued = &run.Queued
		}
		return "running"
	case ok && run.Phase == cycle.Queued:
		info.Queued = &run.Queued
		return "queued"
	}
	if e := s.journalEntry(ds, id); e.State == cycle.Finished && !e.Resolution && !e.Finished.IsZero() {
		finished := e.Finished.Local()
		info.Finished = &finished
		if !e.Started.IsZero() {
			started := e.Started.Local()
			info.Started = &started
		}
	}
	return ""
}

// decisionLine is the decision word and what made it: "deny — rule
// `bash(rm *)` (~/work/.chatls.toml:3)", or the reason when no rule did
// ("require_approval — no resolver approved this call").
func decisionLine(v approval.Verdict) string {
	line := string(v.Decision)
	var decider *approval.Step
	for i := range v.Steps {
		if v.Steps[i].Decision == v.Decision {
			decider = &v.Steps[i] // the first with the final word; any deny wins
			break
		}
	}
	switch {
	case decider != nil && decider.Rule != "":
		line += " — rule " + inlineCode(decider.Rule)
		if decider.File != "" {
			loc := homeRelative(decider.File)
			if decider.Line > 0 {
				loc += ":" + strconv.Itoa(decider.Line)
			}
			line += " (" + loc + ")"
		}
	case decider != nil && decider.Reason != "":
		line += " — " + strings.Join(strings.Fields(decider.Reason), " ")
	case v.Reason != "":
		line += " — " + strings.Join(strings.Fields(v.Reason), " ")
	}
	return line
}

// inlineCode wraps s in enough backticks for Markdown.
func inlineCode(s string) string {
	ticks := "`"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// homeRelative shows a path under the home directory as ~/….
func homeRelative(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return path
	}
	if rest, ok := strings.CutPrefix(path, strings.TrimSuffix(home, "/")+"/"); ok {
		return "~/" + rest
	}
	return path
}
