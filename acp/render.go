package acp

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/chatls/chatls/chatdoc"
)

// Transcript renders an agent's turn as Flemma text (SPEC §12): message
// chunks as text, thought chunks as <thinking>, each tool_call as a
// **Tool Use:** block and its completion as the **Tool Result:** in the
// @You: message after it, a plan as a checklist. The agent runs its tools
// itself, so a turn is a chain of rounds — @Assistant: text and tool uses,
// @You: their results — and text after a tool use starts the next round.
// A tool_call with an ID seen before updates its Tool Use in place, and
// the plan is shown where it first appeared, as it stands now; so the text
// is rendered whole each time (Text, Final), not appended to. Pure: no I/O.
type Transcript struct {
	// SpacedHeaders puts a blank line between each tool header and its
	// fence, for a document that writes its headers so (chatdoc's
	// HeaderGap); the zero value writes them compact, as chatls writes a
	// fresh document (SPEC §1 "Compact headers").
	SpacedHeaders bool

	rounds    []*round
	tools     map[string]*toolUse
	plan      []PlanEntry
	terminals map[string]string // terminal ID → its output, shown in results
}

type round struct{ items []item }

// item is one part of a round: text, thinking, a tool use, or the plan.
type item struct {
	text     string
	thinking bool
	plan     bool
	tool     *toolUse
}

type toolUse struct {
	call    ToolCall // merged over all its updates
	pending bool     // a permission placeholder is shown for it
}

// Add takes the next update of the turn. Usage and other kinds change
// nothing in the text.
func (t *Transcript) Add(u Update) {
	switch u.Kind {
	case UpdateMessage:
		t.addText(u.Text, false)
	case UpdateThought:
		t.addText(u.Text, true)
	case UpdateToolCall, UpdateToolCallUpdate:
		if u.Tool == nil {
			return
		}
		if tu := t.tools[u.Tool.ID]; tu != nil {
			merge(&tu.call, u.Tool)
			return
		}
		if t.tools == nil {
			t.tools = map[string]*toolUse{}
		}
		tu := &toolUse{call: *u.Tool}
		t.tools[u.Tool.ID] = tu
		r := t.current()
		r.items = append(r.items, item{tool: tu})
	case UpdatePlan:
		if t.plan == nil {
			r := t.textRound()
			r.items = append(r.items, item{plan: true})
		}
		t.plan = append([]PlanEntry{}, u.Plan...)
	}
}

// Pending shows (or, with false, stops showing) a `pending` placeholder as
// the result of tool call id while the agent waits for permission: the
// session's approval is the same edit as for any call (SPEC §12).
func (t *Transcript) Pending(id string, waiting bool) {
	if tu := t.tools[id]; tu != nil {
		tu.pending = waiting
	}
}

// TerminalOutput sets what a result that embeds terminal id shows.
func (t *Transcript) TerminalOutput(id, output string) {
	if t.terminals == nil {
		t.terminals = map[string]string{}
	}
	t.terminals[id] = output
}

// Text is the answer so far, from `@Assistant:` on. Calls still running
// have no result yet (or their pending placeholder), and no `@You:` is
// written after the last round until it has a result to show.
func (t *Transcript) Text() string { return t.render(false, "") }

// Final is the finished answer, ending with `@You:` for the user's next
// message: the abort marker when abort is not empty (the agent exited, the
// user cancelled: chatdoc.AbortedByUser), and every call that did not
// finish gets an error result (abort, or a sentence saying the agent never
// reported it), so none is left for chatls to run.
func (t *Transcript) Final(abort string) string { return t.render(true, abort) }

func (t *Transcript) addText(s string, thinking bool) {
	if s == "" {
		return
	}
	r := t.textRound()
	if n := len(r.items); n > 0 && !r.items[n-1].plan && r.items[n-1].tool == nil && r.items[n-1].thinking == thinking {
		r.items[n-1].text += s
		return
	}
	r.items = append(r.items, item{text: s, thinking: thinking})
}

// current is the round being written.
func (t *Transcript) current() *round {
	if len(t.rounds) == 0 {
		t.rounds = append(t.rounds, &round{})
	}
	return t.rounds[len(t.rounds)-1]
}

// textRound is the round text goes to: a new one after a tool use.
func (t *Transcript) textRound() *round {
	r := t.current()
	for _, it := range r.items {
		if it.tool != nil {
			r = &round{}
			t.rounds = append(t.rounds, r)
			break
		}
	}
	return r
}

func (t *Transcript) render(final bool, abort string) string {
	var b strings.Builder
	for i, rd := range t.rounds {
		last := i == len(t.rounds)-1
		r := chatdoc.Response{SpacedHeaders: t.SpacedHeaders}
		b.WriteString(r.Start(tail(b.String())))
		fed := ""
		for _, it := range rd.items {
			switch {
			case it.tool != nil:
				c := &it.tool.call
				b.WriteString(r.ToolUse(ToolName(c), c.ID, toolInput(c.RawInput)))
				fed = "\n"
			case it.thinking:
				r.Thinking(chatdoc.ResponseThinking{Text: it.text})
			case it.plan:
				s := separator(r.Content(), fed) + checklist(t.plan) + "\n"
				b.WriteString(r.Text(s))
				fed = s
			default:
				b.WriteString(r.Text(it.text))
				fed = it.text
			}
		}
		var results []string
		for _, it := range rd.items {
			if it.tool != nil {
				if res, ok := t.result(it.tool, final, abort); ok {
					results = append(results, res)
				}
			}
		}
		markAbort := ""
		if last && final {
			markAbort = abort
		}
		end := r.End(markAbort)
		if last && !final && len(results) == 0 {
			end = strings.TrimSuffix(end, "@You:\n\n") // not the user's turn yet
			if strings.HasSuffix(b.String()+end, "\n\n") {
				end = strings.TrimSuffix(end, "\n")
			}
		}
		b.WriteString(end)
		b.WriteString(strings.Join(results, "\n"))
	}
	return b.String()
}

// result is the text of a call's result in the @You: message, if it has one.
func (t *Transcript) result(tu *toolUse, final bool, abort string) (string, bool) {
	c := &tu.call
	gap := headerGap(t.SpacedHeaders)
	switch {
	case c.Status == "completed" || c.Status == "failed":
		return resultBlock(c.ID, t.resultText(c), c.Status == "failed", gap), true
	case final && abort != "":
		return resultBlock(c.ID, abort, true, gap), true
	case final:
		return resultBlock(c.ID, "The agent ended its turn without reporting this tool's result.", true, gap), true
	case tu.pending:
		return PlaceholderBlock(c.ID, chatdoc.StatusPending, t.SpacedHeaders), true
	}
	return "", false
}

// resultBlock is a finished result as chatdoc writes one: header, gap, a
// fence sized to the content, the content, the fence.
func resultBlock(id, content string, isError bool, gap string) string {
	header := "**Tool Result:** `" + id + "`"
	if isError {
		header += " (error)"
	}
	fence := chatdoc.FenceFor(content)
	return header + "\n" + gap + fence + "\n" + content + "\n" + fence + "\n"
}

// headerGap is what goes between a tool header line and its fence.
func headerGap(spaced bool) string {
	if spaced {
		return "\n"
	}
	return ""
}

// resultText is a call's output: its content (diffs as unified diffs,
// terminals as their output), else its raw output.
func (t *Transcript) resultText(c *ToolCall) string {
	var b strings.Builder
	for _, ct := range c.Content {
		var s string
		switch {
		case ct.Diff != nil:
			s = unifiedDiff(ct.Diff)
		case ct.TerminalID != "":
			if out, ok := t.terminals[ct.TerminalID]; ok {
				s = out
			} else {
				s = "(output of terminal " + ct.TerminalID + ")"
			}
		default:
			s = ct.Text
		}
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
		b.WriteString(s)
	}
	if b.Len() == 0 && c.RawOutput != nil {
		var s string
		if json.Unmarshal(c.RawOutput, &s) == nil {
			b.WriteString(s)
		} else {
			b.WriteString(compactJSON(c.RawOutput))
		}
	}
	text := strings.TrimSuffix(b.String(), "\n")
	if strings.TrimSpace(text) == "" {
		return "(no output)"
	}
	return text
}

func unifiedDiff(d *Diff) string {
	oldLabel, oldText := d.Path, ""
	if d.OldText == nil {
		oldLabel = "/dev/null"
	} else {
		oldText = *d.OldText
	}
	diff := udiff.Unified(oldLabel, d.Path, oldText, d.NewText)
	if diff == "" {
		return "(no changes to " + d.Path + ")"
	}
	return diff
}

// ToolName is a call's NAME in its Tool Use header: its kind (read, edit,
// execute …), which names what it does the same way every time so rules
// can match it, or for kind other its title, made a valid name (letters,
// digits and `_-.` only; the title "Read /a/b.go" gives Read_a_b.go).
func ToolName(c *ToolCall) string {
	if c.Kind != "" && c.Kind != "other" {
		if n := sanitizeName(c.Kind); n != "" {
			return n
		}
	}
	if n := sanitizeName(c.Title); n != "" {
		return n
	}
	return "tool"
}

func sanitizeName(s string) string {
	var b strings.Builder
	gap := false
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.'
		if !ok {
			gap = b.Len() > 0
			continue
		}
		if gap {
			b.WriteByte('_')
			gap = false
		}
		b.WriteRune(r)
		if b.Len() >= 64 {
			break
		}
	}
	return strings.Trim(b.String(), "._-")
}

// toolInput is the raw input as the compact JSON object a Tool Use holds:
// {} when none was sent, {"input": …} when it is not an object.
func toolInput(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || !json.Valid(raw) {
		return "{}"
	}
	if raw[0] != '{' {
		return `{"input":` + compactJSON(raw) + `}`
	}
	return compactJSON(raw)
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// checklist is the plan as Markdown task items.
func checklist(plan []PlanEntry) string {
	var b strings.Builder
	for _, e := range plan {
		box := "- [ ] "
		if e.Status == "completed" {
			box = "- [x] "
		}
		b.WriteString(box + strings.ReplaceAll(e.Content, "\n", " "))
		if e.Status == "in_progress" {
			b.WriteString(" (in progress)")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// separator puts a blank line between text before and a block of text.
func separator(content bool, before string) string {
	switch {
	case !content || before == "" || strings.HasSuffix(before, "\n\n"):
		return ""
	case strings.HasSuffix(before, "\n"):
		return "\n"
	}
	return "\n\n"
}

func tail(s string) string {
	if len(s) > 2 {
		return s[len(s)-2:]
	}
	return s
}

// merge applies a tool_call (all fields) or tool_call_update (the fields
// it sets) to the call as known.
func merge(c *ToolCall, u *ToolCall) {
	if u.Title != "" {
		c.Title = u.Title
	}
	if u.Kind != "" {
		c.Kind = u.Kind
	}
	if u.Status != "" {
		c.Status = u.Status
	}
	if u.RawInput != nil {
		c.RawInput = u.RawInput
	}
	if u.RawOutput != nil {
		c.RawOutput = u.RawOutput
	}
	if u.Content != nil {
		c.Content = u.Content
	}
	if u.Locations != nil {
		c.Locations = u.Locations
	}
}

// The pieces of a Transcript, for a writer that only appends to the
// document and places results by ID itself (the session's): a call's
// input as a Tool Use holds it, its result block and text, a plan's
// checklist, and the merge of a tool_call_update.

// ToolInput is a call's raw input as the compact JSON object of its Tool Use.
func ToolInput(raw json.RawMessage) string { return toolInput(raw) }

// ResultText is a finished call's output as its Tool Result shows it;
// terminals are the outputs of the terminals it embeds.
func ResultText(c *ToolCall, terminals map[string]string) string {
	t := Transcript{terminals: terminals}
	return t.resultText(c)
}

// ResultBlock is a finished `**Tool Result:**` block, with a blank line
// after its header when spaced (the document's header gap, SPEC §1).
func ResultBlock(id, content string, isError, spaced bool) string {
	return resultBlock(id, content, isError, headerGap(spaced))
}

// PlaceholderBlock is a `**Tool Result:**` placeholder (pending, approved)
// in the fence form chatls writes, spaced as ResultBlock.
func PlaceholderBlock(id string, st chatdoc.Status, spaced bool) string {
	return "**Tool Result:** `" + id + "`\n" + headerGap(spaced) + "```flemma:tool status=" + string(st) + "\n```\n"
}

// Checklist is a plan as Markdown task items.
func Checklist(plan []PlanEntry) string { return checklist(plan) }

// Merge applies an update of a call (the fields it sets) to the call as known.
func Merge(c, u *ToolCall) { merge(c, u) }
