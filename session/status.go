package session

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/chatls/chatls/cycle"
)

// Notice is a document's status as every client's status line, mode line
// or status bar shows it (chatls/status, docs/editors.md "Status"): the
// Status, the document's URI, the count of tool uses without a result, and
// Text, the one line a client shows as is.
type Notice struct {
	URI string `json:"uri"`
	Status
	Unanswered int    `json:"unanswered"` // Status.Report's, which its own JSON leaves out
	Text       string `json:"text"`
}

// Notice is the document's status now.
func (s *Session) Notice(ds *Doc) Notice {
	doc, l := s.view(ds)
	keys := s.keyNames(ds)
	status := s.Status(ds)
	st := Notice{URI: ds.uri, Status: status, Unanswered: status.Unanswered}
	st.Text = statusText(st, keys, func() string { return sendReadiness(doc, l, keys, s.ranHere(ds)) })
	return st
}

// statusText is the status in one line, with the key that moves it on:
// "2 calls wait for approval (press \y to approve)", "bash running",
// "claude-sonnet-4-5 is answering", "ready".
func statusText(st Notice, keys cycle.Keys, readiness func() string) string {
	text := statusParts(st, keys, readiness)
	if st.Unsandboxed {
		text += " · unsandboxed"
	}
	return text
}

func statusParts(st Notice, keys cycle.Keys, readiness func() string) string {
	var parts []string
	plural := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	switch {
	case st.Retry != "":
		parts = append(parts, cmp.Or(st.Model, "the model")+": "+st.Retry)
	case st.Sending:
		parts = append(parts, cmp.Or(st.Model, "the model")+" is answering")
	}
	if st.Running > 0 {
		parts = append(parts, plural(st.Running, "call running", "calls running"))
	}
	if st.Jobs > 0 {
		parts = append(parts, plural(st.Jobs, "job running in the background", "jobs running in the background"))
	}
	if st.Waiting > 0 {
		parts = append(parts, plural(st.Waiting, "call waits for approval", "calls wait for approval")+" ("+keys.Do(cycle.KeyApprove)+")")
	}
	if st.AlreadyRan > 0 {
		parts = append(parts, plural(st.AlreadyRan, "call already ran", "calls already ran")+" ("+keys.Do(cycle.KeyAdvance)+" to write the result)")
	}
	if approved := st.Pending - st.Waiting - st.AlreadyRan; approved > 0 {
		parts = append(parts, plural(approved, "approved call to run", "approved calls to run")+" ("+keys.Do(cycle.KeyAdvance)+")")
	}
	if st.Unanswered > 0 {
		parts = append(parts, plural(st.Unanswered, "call without a placeholder", "calls without a placeholder")+" ("+keys.Do(cycle.KeyAdvance)+")")
	}
	if st.Message != "" {
		parts = append(parts, st.Message) // tool uses sharing an ID
	}
	if st.Problem != "" {
		parts = append(parts, st.Problem)
	}
	if len(parts) == 0 {
		if why := readiness(); why != "" {
			parts = append(parts, why)
		} else {
			parts = append(parts, "ready to send ("+keys.Do(cycle.KeyAdvance)+")")
		}
	}
	if c := st.Context; c != nil {
		parts = append(parts, c.Text) // the window is nearly full, whatever else
	}
	text := strings.Join(parts, "; ")
	if st.Usage != nil && !st.Sending {
		text += " — last answer: " + st.Usage.Text
	}
	return text
}
