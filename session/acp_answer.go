package session

import (
	"strings"

	"github.com/chatls/chatls/acp"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
)

// agentAnswer writes an agent's turn (SPEC §12) into the document as the
// stream writer does a model's answer: only by appending. What changes
// later — a call's result, which arrives after other text — goes into the
// block written for it, located by tool ID (results). So the shapes
// differ a little from acp.Transcript, which renders the whole turn again
// each time: a message's Tool Use is written once it settles (Claude Code
// sends each tool_call twice, the first without input), and the @You:
// message with the results of a message's calls is written when the agent
// goes on with text, asks for a permission, or ends its turn; a call
// still running then gets an `approved` placeholder that its result
// replaces. A call reported after that starts a new @Assistant: message.
// Pure: the session pushes text and writes results.
type agentAnswer struct {
	spaced  bool // the document writes a blank line after tool headers (SPEC §1)
	resp    chatdoc.Response
	open    bool // an @Assistant: message is being written
	tools   []*agentTool
	thought strings.Builder
	held    *agentTool // the last tool_call, written once it settles
	calls   map[string]*agentTool
	plan    string // the plan as last written
	newPlan string // the plan as it stands
	terms   map[string]string
	tail    string // the last characters written
}

// agentTool is one call of the turn.
type agentTool struct {
	call    acp.ToolCall
	written bool // its Tool Use is in the text
	placed  bool // its result block (placeholder or result) is in the text
	asking  bool // a permission waits for the user
	done    bool // completed or failed
}

// agentOut is what an update means for the document: text to append and
// results to write into blocks already placed.
type agentOut struct {
	text    string
	results map[string]cycle.Result
}

func (o *agentOut) add(s string) { o.text += s }

func (o *agentOut) result(id, text string, isError bool) {
	if o.results == nil {
		o.results = map[string]cycle.Result{}
	}
	o.results[id] = cycle.Result{Text: text, IsError: isError}
}

// newAgentAnswer starts an answer after tail (the document's last
// characters); spaced is the document's header gap (HeaderGap() != ""), so
// the agent's tool uses and results are written as the model's are.
func newAgentAnswer(tail string, spaced bool) *agentAnswer {
	return &agentAnswer{tail: tail, spaced: spaced, calls: map[string]*agentTool{}}
}

// emit is text appended, remembered for the next @Assistant: line's blank line.
func (a *agentAnswer) emit(o *agentOut, s string) {
	o.add(s)
	if t := a.tail + s; len(t) > 2 {
		a.tail = t[len(t)-2:]
	} else {
		a.tail = t
	}
}

// begin opens the answer's first message.
func (a *agentAnswer) begin() string {
	var o agentOut
	a.openMessage(&o)
	return o.text
}

// Content says whether the turn wrote anything beyond the @Assistant: line.
func (a *agentAnswer) Content() bool {
	return len(a.calls) > 0 || a.resp.Content() || a.thought.Len() > 0
}

func (a *agentAnswer) openMessage(o *agentOut) {
	if a.open {
		return
	}
	a.resp = chatdoc.Response{SpacedHeaders: a.spaced}
	a.emit(o, a.resp.Start(a.tail))
	a.open = true
}

// textMessage is the message text goes to: a new one after tool uses.
func (a *agentAnswer) textMessage(o *agentOut) {
	a.settle(o)
	if len(a.tools) > 0 {
		a.closeMessage(o, "", "")
	}
	a.openMessage(o)
}

// add takes the next update of the turn.
func (a *agentAnswer) add(u acp.Update) agentOut {
	var o agentOut
	switch u.Kind {
	case acp.UpdateMessage:
		if u.Text != "" {
			a.textMessage(&o)
			a.emit(&o, a.resp.Text(u.Text))
		}
	case acp.UpdateThought:
		if u.Text != "" {
			a.textMessage(&o)
			a.thought.WriteString(u.Text)
		}
	case acp.UpdateToolCall, acp.UpdateToolCallUpdate:
		if u.Tool != nil && u.Tool.ID != "" {
			a.tool(&o, u.Tool)
		}
	case acp.UpdatePlan:
		a.newPlan = acp.Checklist(u.Plan)
		if a.plan == "" {
			a.textMessage(&o)
			a.writePlan(&o)
		}
	}
	return o
}

func (a *agentAnswer) writePlan(o *agentOut) {
	text := a.newPlan
	if a.resp.Content() && !strings.HasSuffix(a.tail, "\n\n") {
		text = "\n" + text
		if !strings.HasSuffix(a.tail, "\n") {
			text = "\n" + text
		}
	}
	a.emit(o, a.resp.Text(text))
	a.plan = a.newPlan
}

func (a *agentAnswer) tool(o *agentOut, c *acp.ToolCall) {
	tu := a.calls[c.ID]
	if tu == nil {
		a.settle(o)
		a.openMessage(o)
		tu = &agentTool{call: *c}
		a.calls[c.ID] = tu
		a.tools = append(a.tools, tu)
		a.held = tu
	} else {
		acp.Merge(&tu.call, c)
	}
	st := tu.call.Status
	if tu == a.held && (st == "in_progress" || st == "completed" || st == "failed" || len(tu.call.Content) > 0) {
		a.settle(o)
	}
	if (st == "completed" || st == "failed") && !tu.done {
		tu.done = true
		if tu.placed {
			o.result(tu.call.ID, acp.ResultText(&tu.call, a.terms), st == "failed")
		}
	}
}

// settle writes the held Tool Use.
func (a *agentAnswer) settle(o *agentOut) {
	if h := a.held; h != nil {
		a.held = nil
		if !h.written {
			h.written = true
			a.emit(o, a.resp.ToolUse(acp.ToolName(&h.call), h.call.ID, acp.ToolInput(h.call.RawInput)))
		}
	}
}

// closeMessage ends the open message (abort: its marker) and writes the
// @You: message with a block for each of its calls: the result of a
// finished one, a pending placeholder where a permission waits, an
// approved one while it runs — or, when unfinished is set (the turn
// ended), that text as its error result.
func (a *agentAnswer) closeMessage(o *agentOut, abort, unfinished string) {
	a.settle(o)
	if t := strings.TrimSpace(a.thought.String()); t != "" {
		a.resp.Thinking(chatdoc.ResponseThinking{Text: t})
	}
	a.thought.Reset()
	a.emit(o, a.resp.End(abort))
	var blocks []string
	for _, tu := range a.tools {
		tu.placed = true
		c := &tu.call
		switch {
		case tu.done:
			blocks = append(blocks, acp.ResultBlock(c.ID, acp.ResultText(c, a.terms), c.Status == "failed", a.spaced))
		case unfinished != "":
			tu.done = true
			blocks = append(blocks, acp.ResultBlock(c.ID, unfinished, true, a.spaced))
		case tu.asking:
			blocks = append(blocks, acp.PlaceholderBlock(c.ID, chatdoc.StatusPending, a.spaced))
		default:
			blocks = append(blocks, acp.PlaceholderBlock(c.ID, chatdoc.StatusApproved, a.spaced))
		}
	}
	a.emit(o, strings.Join(blocks, "\n"))
	a.tools = nil
	a.open = false
}

// permission shows a pending placeholder on call c: the user decides.
// ok is false when the call's block is written already (it was reported,
// and its message closed, before the agent asked): the caller then sets
// that block's status to pending.
func (a *agentAnswer) permission(c acp.ToolCall) (o agentOut, placed bool) {
	tu := a.calls[c.ID]
	if tu == nil {
		a.tool(&o, &c)
		tu = a.calls[c.ID]
	}
	tu.asking = true
	if tu.placed {
		return o, true
	}
	a.closeMessage(&o, "", "")
	return o, false
}

// decided says the permission of call id was answered.
func (a *agentAnswer) decided(id string) {
	if tu := a.calls[id]; tu != nil {
		tu.asking = false
	}
}

// running says whether a call of the turn the agent was allowed to run
// has not finished: the agent's file and terminal requests are its work.
func (a *agentAnswer) running(allowed map[string]bool) bool {
	for id := range allowed {
		if tu := a.calls[id]; tu != nil && !tu.done {
			return true
		}
	}
	return false
}

// terminal records a terminal's output, for the results that embed it.
func (a *agentAnswer) terminal(id, output string) {
	if a.terms == nil {
		a.terms = map[string]string{}
	}
	a.terms[id] = output
}

// final ends the turn (abort: its marker): every call without a result
// gets an error result, a changed plan is written as it stands, and the
// text ends with `@You:` for the user.
func (a *agentAnswer) final(abort string) agentOut {
	var o agentOut
	a.settle(&o)
	unfinished := abort
	if unfinished == "" {
		unfinished = "The agent ended its turn without reporting this tool's result."
	}
	for _, tu := range a.calls {
		if tu.placed && !tu.done {
			tu.done = true
			o.result(tu.call.ID, unfinished, true)
		}
	}
	if a.newPlan != a.plan {
		a.textMessage(&o)
		a.writePlan(&o)
	}
	if !a.open && abort != "" {
		a.openMessage(&o) // the marker needs a message of its own
	}
	if a.open {
		a.closeMessage(&o, abort, unfinished)
	}
	return o
}
