package session

import (
	"context"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/surface"
	"github.com/chatls/chatls/tools"
)

// HoverInfo is what the hover on a tool use or its placeholder shows: the
// tool's description, the full input, the policy's decision with its trace,
// and the status (SPEC §3). r is the call's result, or nil.
func (s *Session) HoverInfo(ctx context.Context, ds *Doc, doc *chatdoc.Document, r *chatdoc.ToolResult, u *chatdoc.ToolUse) surface.HoverInfo {
	info := surface.HoverInfo{Input: u.Input(), RawInput: u.RawInput, Status: "no result yet"}
	target := s.targetFor(ds, doc)
	if t, ok := (tools.OnTarget{Registry: s.registry, Target: target}).Lookup(u.Name); ok {
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
	if r == nil || r.IsPlaceholder() {
		effCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
		info.Effect = s.registry.Effect(effCtx, tools.Call{ID: u.ID, Name: u.Name, Input: u.ToolInput()}, s.toolEnv(ds))
		cancel()
	}
	{
		if target != nil {
			info.RunsOn = "this machine"
			if where := tools.RunsWhere(target, info.Tool); where != "here" {
				info.RunsOn = "target " + where
			}
		}
		v := s.decide(ds, doc, u, "")
		info.Decision, info.Trace = v.Summary(), v.Format()
		if status := s.sessionTimes(ds, u.ID, &info); status != "" {
			info.Status = status
		}
		if problem := s.sandboxProblemFor(ds.path); problem != "" && u.Name == "bash" {
			if s.settings.effectiveFor(ds.path).Sandbox.Required {
				info.Trace += "\nsandbox: bubblewrap cannot run (" + problem + ") and sandbox.enabled = true: this call asks, and fails unless you approve it with sandbox=off"
			} else {
				info.Trace += "\nsandbox: the sandbox is unavailable here (" + problem + "); this call needs a rule or your approval, and runs unsandboxed"
			}
		}
	}
	return info
}

// sessionTimes fills the execution times known for a call and returns its
// live status ("queued", "running"), or "" when it is not running (the
// document's status then stands). A queued run shows when it was taken;
// a running one when it started, and when it was queued if it had to wait
// for a slot. A finished run's start and finish come from the journal.
func (s *Session) sessionTimes(ds *Doc, id string, info *surface.HoverInfo) string {
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
