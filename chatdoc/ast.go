// Package chatdoc parses and writes the .chat format (SPEC §1). It is pure:
// no LSP or RPC types. All offsets are byte offsets into Document.Text();
// Span is half-open [Start, End).
package chatdoc

// Span is a half-open byte range [Start, End) in a document's text.
type Span struct{ Start, End int }

// Len is the number of bytes the span covers.
func (s Span) Len() int { return s.End - s.Start }

// Contains reports whether offset lies inside the span (End inclusive, so a
// cursor at the end of a line still belongs to it).
func (s Span) Contains(offset int) bool { return offset >= s.Start && offset <= s.End }

// Status of a tool result. The empty status is a finished result.
type Status string

const (
	StatusDone     Status = ""
	StatusPending  Status = "pending"
	StatusApproved Status = "approved"
	StatusRejected Status = "rejected"
	StatusDenied   Status = "denied"
	StatusAborted  Status = "aborted"
	StatusError    Status = "error" // a finished result flagged as an error
)

// IsPlaceholder reports whether a result with this status still awaits the cycle.
func (s Status) IsPlaceholder() bool { return s != StatusDone && s != StatusError }

// Dialect is how a placeholder was written (SPEC §1 "Placeholder dialects").
// A byte, not a string: it sits in every tool result.
type Dialect uint8

const (
	DialectNone   Dialect = iota // finished result
	DialectFence                 // ```flemma:tool status=pending
	DialectSuffix                // **Tool Result:** `id` (pending)
	DialectLegacy                // ```flemma:pending
)

// String is the dialect's name: "fence", "suffix", "legacy" or "".
func (d Dialect) String() string {
	switch d {
	case DialectFence:
		return "fence"
	case DialectSuffix:
		return "suffix"
	case DialectLegacy:
		return "legacy"
	}
	return ""
}

// Severity mirrors LSP DiagnosticSeverity values without importing LSP types.
type Severity int

const (
	SeverityError       Severity = 1
	SeverityWarning     Severity = 2
	SeverityInformation Severity = 3
	SeverityHint        Severity = 4
)

// Diagnostic is a parse-level finding. Code is stable (see diagnostics.go).
type Diagnostic struct {
	Span     Span
	Severity Severity
	Code     string
	Message  string
	// ToolID names the tool use or result the diagnostic is about, if any.
	ToolID string
}

// KV is one extra `key=value` token of a placeholder, kept in order.
type KV struct{ Key, Value string }

// Fence is a backtick code fence at column 0.
type Fence struct {
	Span        Span   // opener line start .. end of closer line (incl. its newline), or document end if unclosed
	ContentSpan Span   // between the opener's line ending and the closer line's start
	Info        string // info string after the backticks, trimmed
	Ticks       int    // number of backticks in the opener
	// The opener and closer lines' lengths (without line endings; 0: no
	// closer) instead of their spans: 64 bytes a fence instead of 96, and
	// nothing more to move when an edit shifts the fence.
	openerLen, closerLen int32
}

// OpenFence is an unclosed fence whose opener line is opener, reaching to
// end (its content span left zero): for a caller that finds a fence the
// parser does not record.
func OpenFence(opener Span, ticks, end int) *Fence {
	return &Fence{Span: Span{opener.Start, end}, Ticks: ticks, openerLen: int32(opener.Len())}
}

// OpenerSpan is the opener line without its line ending.
func (f *Fence) OpenerSpan() Span { return Span{f.Span.Start, f.Span.Start + int(f.openerLen)} }

// CloserSpan is the closer line without its line ending; zero if unclosed.
func (f *Fence) CloserSpan() Span {
	if f.closerLen == 0 {
		return Span{}
	}
	return Span{f.ContentSpan.End, f.ContentSpan.End + int(f.closerLen)}
}

// Closed reports whether the fence has a closer line (it holds at least
// three backticks, so its length is never 0).
func (f *Fence) Closed() bool { return f.closerLen > 0 }

// ToolUse is a `**Tool Use:**` block inside an Assistant message.
type ToolUse struct {
	ID, Name   string
	Span       Span // header line start .. end of fence (incl. newline)
	HeaderSpan Span // the header line without its line ending
	Fence      *Fence
	RawInput   string // fence content, verbatim
	InputError string // non-empty when the input did not parse
	Message    int    // index into Document.Messages()
	// NAME and ID in the header line, from its start (NameSpan, IDSpan):
	// 128 bytes a use instead of 144, and nothing to move in a shift.
	name, id inLine
}

// inLine is a piece of a line: its offset from the line's start and length.
type inLine struct{ at, len int32 }

func inLineOf(s Span, lineStart int) inLine {
	return inLine{int32(s.Start - lineStart), int32(s.Len())}
}

func (p inLine) span(lineStart int) Span {
	start := lineStart + int(p.at)
	return Span{start, start + int(p.len)}
}

// NameSpan is NAME inside the backticks.
func (u *ToolUse) NameSpan() Span { return u.name.span(u.HeaderSpan.Start) }

// IDSpan is ID inside the backticks.
func (u *ToolUse) IDSpan() Span { return u.id.span(u.HeaderSpan.Start) }

// Valid reports whether the call parsed completely (closed fence, JSON object).
func (u *ToolUse) Valid() bool { return u.InputError == "" && u.Fence != nil }

// InputProblem is why the call can't run, in the words of its diagnostic
// (SPEC §1: the error result a broken call gets), "" when Valid.
func (u *ToolUse) InputProblem() string {
	switch {
	case u.Valid():
		return ""
	case u.Fence == nil:
		return MessageToolUseNoFence
	}
	return messageToolInputPrefix + u.InputError
}

// Input is RawInput decoded, a new map on every call (callers may change
// it); nil when the input is not a JSON object. Decoding on demand keeps
// snapshots small: a 10 MB conversation holds 11,500 inputs, and most are
// never looked at after the parse checked them.
func (u *ToolUse) Input() map[string]any {
	if !u.Valid() {
		return nil
	}
	return DecodeInput(u.RawInput)
}

// ToolResult is a `**Tool Result:**` block inside a You message.
type ToolResult struct {
	ID         string
	Status     Status
	extra      *[]KV  // extra key=value tokens other than status, in order (Extra); nil without
	Span       Span   // header line start .. end of fence (incl. newline)
	HeaderSpan Span   // header line without line ending
	Fence      *Fence // nil if the header has no fence
	Content    string // fence content verbatim (without the final line ending before the closer)
	Message    int
	// ID and the status word as offsets from the header line's start
	// (IDSpan, StatusSpan; a zero status: none, as no status word starts
	// the header line). With the dialect a byte and the extra tokens behind
	// a pointer: 128 bytes a result instead of 176.
	id, status inLine
	Dialect    Dialect
}

// IDSpan is ID inside the backticks.
func (r *ToolResult) IDSpan() Span { return r.id.span(r.HeaderSpan.Start) }

// StatusSpan is the byte range of the status word itself (e.g. "pending"
// in "status=pending", "(pending)", or "flemma:pending"); zero for results
// without one. Setting a status rewrites exactly this span.
func (r *ToolResult) StatusSpan() Span {
	if r.status == (inLine{}) {
		return Span{}
	}
	return r.status.span(r.HeaderSpan.Start)
}

// Extra are the key=value tokens other than status, in order: a
// placeholder's, or a finished result's metadata (`(job=JOB)`).
func (r *ToolResult) Extra() []KV {
	if r.extra == nil {
		return nil
	}
	return *r.extra
}

// IsPlaceholder reports whether the result still awaits the cycle.
func (r *ToolResult) IsPlaceholder() bool { return r.Status.IsPlaceholder() }

// Thinking is a <thinking …> … </thinking> block or a self-closing one.
type Thinking struct {
	Span        Span
	Attrs       string // raw attributes, e.g. `anthropic:signature="…"` or `redacted`
	SelfClosing bool
}

// AbortMarker is `<!-- flemma:aborted: MESSAGE -->` alone on a line.
type AbortMarker struct {
	Span    Span
	Message string
}

// FileRef is an `@./path` reference in message text.
type FileRef struct {
	Span Span   // `@` through the path (and its `;key=value` options)
	Path string // as Flemma reads it: URL-decoded, without `;type=`
	MIME string // the `;type=` override, if any
	// Options are the `;key=value` options in order (type included;
	// quoted values without their quotes), as Flemma 0.14 reads them.
	Options []KV
}

// Message is one `@Role:` section.
type Message struct {
	Role        string // "System", "You", "Assistant", or any other word (ignored by the cycle)
	Span        Span   // marker line start .. start of the next marker (or document end)
	MarkerSpan  Span   // the `@Role:` line without its line ending
	ToolUses    []*ToolUse
	ToolResults []*ToolResult
	Fences      []*Fence

	// extra holds what few messages have; nil for the others. A 10 MB
	// conversation has ~22,000 messages: 128 bytes each instead of 208.
	extra *messageExtra
}

// messageExtra is the rarer part of a message.
type messageExtra struct {
	thinking []*Thinking
	abort    *AbortMarker
	fileRefs []*FileRef
	diags    []Diagnostic // parse findings inside the message, in order
}

// Thinking are the message's thinking blocks, in order.
func (m *Message) Thinking() []*Thinking {
	if m.extra == nil {
		return nil
	}
	return m.extra.thinking
}

// Abort is the message's abort marker; nil when it has none.
func (m *Message) Abort() *AbortMarker {
	if m.extra == nil {
		return nil
	}
	return m.extra.abort
}

// FileRefs are the message's `@./path` references, in order.
func (m *Message) FileRefs() []*FileRef {
	if m.extra == nil {
		return nil
	}
	return m.extra.fileRefs
}

// findings are the parse findings inside the message, in order.
func (m *Message) findings() []Diagnostic {
	if m.extra == nil {
		return nil
	}
	return m.extra.diags
}

// more is the message's extra part, made on first use (while parsing).
func (m *Message) more() *messageExtra {
	if m.extra == nil {
		m.extra = &messageExtra{}
	}
	return m.extra
}

// Frontmatter is the optional fenced block on line 1. chatdoc only finds
// it; package frontmatter evaluates it (options, variables, its
// diagnostics), so that parsing runs no Lua.
type Frontmatter struct {
	Language  string // the opener's word: "lua" or "json" (others are the evaluator's error)
	Span      Span   // opener line .. closer line incl. newline
	Opener    Span   // the opener line without its line ending
	Code      string // content between the fences
	CodeStart int    // offset of Code in the document
}

// Document is an immutable parsed snapshot. Never mutate it after Parse.
type Document struct {
	Newline     string // "\n" or "\r\n": the style edits must use
	Lines       *LineIndex
	Frontmatter *Frontmatter  // nil when absent
	store       *messageStore // the messages, in chunks shared between snapshots (messages.go)

	text   *pieceText  // the text, in pieces (see text.go)
	joined *joinedText // Text(), joined on demand

	bodyStart  int          // end of the frontmatter: where messages (or ignored text) begin
	preDiags   []Diagnostic // findings before the first marker (an unclosed fence)
	idFindings []idFinding  // duplicate and orphan IDs, by list index
	ids        idIndex      // first tool use and result per ID

	firstLineOpener bool // line 1 reads as a frontmatter opener (edits may complete one)
}

// Messages are the document's messages in order. On a snapshot made by an
// edit the whole list is built on first use; Message, MessageCount and
// MessageAt look at one part of it.
func (d *Document) Messages() []*Message { return d.store.messages() }

// MessageCount is the number of messages.
func (d *Document) MessageCount() int { return d.store.count }

// Message is the i-th message (0 <= i < MessageCount()).
func (d *Document) Message(i int) *Message { return d.store.message(i) }

// MessageSpan is Message(i).Span, without placing the message's chunk:
// for a reader that looks past the messages it needs, such as the next
// message's start after an edit near the top of a long document.
func (d *Document) MessageSpan(i int) Span { return d.store.spanOf(i) }

// MessageRange are messages [i, j).
func (d *Document) MessageRange(i, j int) []*Message { return d.store.span(i, j, true) }

// ToolUses are all tool uses in document order.
func (d *Document) ToolUses() []*ToolUse { return d.store.toolUses() }

// ToolResults are all tool results in document order.
func (d *Document) ToolResults() []*ToolResult { return d.store.toolResults() }

// Diagnostics are the parse findings in document order, gathered on first
// use.
func (d *Document) Diagnostics() []Diagnostic {
	st := d.store
	st.diagsOnce.Do(func() { st.diags = collectDiagnostics(d.leadingDiags(), st, d.idDiagnostics()) })
	return st.diags
}
