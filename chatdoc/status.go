package chatdoc

import (
	"strings"
)

// statusWords maps every accepted spelling to its status (SPEC §1).
var statusWords = map[string]Status{
	"pending": StatusPending, "approved": StatusApproved, "rejected": StatusRejected,
	"denied": StatusDenied, "aborted": StatusAborted, "error": StatusError,
	"reject": StatusRejected, "deny": StatusDenied,
}

// ParseStatus reads a status word, accepting the aliases reject and deny.
func ParseStatus(word string) (Status, bool) {
	st, ok := statusWords[word]
	return st, ok
}

// resultStatus is what a header suffix or a fence info string says.
type resultStatus struct {
	present bool // a suffix / a flemma: info string was there
	word    string
	span    Span // the status word; zero when absent
	extra   []KV
}

// token is a whitespace-separated word of a line and its absolute offset.
type token struct {
	text string
	at   int
}

func tokens(s string, base int) []token {
	var out []token
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		if j > i {
			out = append(out, token{s[i:j], base + i})
		}
		i = j
	}
	return out
}

// keyValues reads `status=X key=v …` tokens.
func keyValues(toks []token, rs *resultStatus) {
	for _, t := range toks {
		key, value, hasValue := strings.Cut(t.text, "=")
		if key == "status" && hasValue && value != "" && rs.span == (Span{}) {
			rs.word = value
			rs.span = Span{t.at + len("status="), t.at + len(t.text)}
			continue
		}
		rs.extra = append(rs.extra, KV{Key: key, Value: value})
	}
}

// parseSuffix reads the header suffix `(pending)` or `(status=pending k=v)`;
// sufAt/sufLen locate the text inside the parentheses within line.
func parseSuffix(line string, lineStart, sufAt, sufLen int) resultStatus {
	if sufAt == 0 {
		return resultStatus{}
	}
	rs := resultStatus{present: true}
	toks := tokens(line[sufAt:sufAt+sufLen], lineStart+sufAt)
	if len(toks) >= 1 && !strings.Contains(toks[0].text, "=") {
		// `(pending)`, or a status word then metadata: `(error job=JOB)`.
		rs.word = toks[0].text
		rs.span = Span{toks[0].at, toks[0].at + len(toks[0].text)}
		toks = toks[1:]
		if len(toks) == 0 {
			return rs
		}
	}
	keyValues(toks, &rs)
	return rs
}

// parseFenceInfo reads `flemma:tool status=X k=v` (fence dialect; no status
// token means pending) or `flemma:WORD` (legacy dialect).
func parseFenceInfo(opener string, f *Fence) (resultStatus, Dialect) {
	if !strings.HasPrefix(f.Info, "flemma:") {
		return resultStatus{}, DialectNone
	}
	toks := tokens(opener[f.Ticks:], f.OpenerSpan().Start+f.Ticks)
	rs := resultStatus{present: true}
	head := toks[0]
	if head.text == "flemma:tool" {
		keyValues(toks[1:], &rs)
		return rs, DialectFence
	}
	if len(toks) == 1 {
		rs.word = head.text[len("flemma:"):]
		rs.span = Span{head.at + len("flemma:"), head.at + len(head.text)}
		return rs, DialectLegacy
	}
	return resultStatus{}, DialectNone
}

// finishResult settles status and dialect. A header suffix wins over the
// fence info string; an unknown or missing status word reads as pending, the
// state in which nothing runs.
func (s *bodyScanner) finishResult(r *ToolResult, f *Fence) {
	suffix := s.resultInfo
	s.resultInfo = resultStatus{}
	var info resultStatus
	infoDialect := DialectNone
	if f != nil {
		info, infoDialect = parseFenceInfo(s.at(f.OpenerSpan()), f)
	}
	chosen, dialect := suffix, DialectSuffix
	switch {
	case suffix.present && suffix.word == "" && hasKey(suffix.extra, "job") && !info.present:
		// `(job=JOB)`: a finished result with metadata (Flemma 0.12's
		// background jobs), not a placeholder without a status word.
		r.extra = &suffix.extra
		return
	case suffix.present:
		if info.present && info.word != "" && info.word != suffix.word {
			s.addDiag(diag(f.OpenerSpan(), SeverityWarning, CodeConflictingStatus, r.ID,
				"The header says `%s` and the fence says `%s`; the header wins", suffix.word, info.word))
		}
	case info.present:
		chosen, dialect = info, infoDialect
	default:
		return // a finished result
	}
	if extra := chosen.extra; extra != nil {
		r.extra = &extra // allocated only for the few results with extra tokens
	}
	if chosen.span != (Span{}) {
		r.status = inLineOf(chosen.span, r.HeaderSpan.Start)
	}
	st, ok := ParseStatus(chosen.word)
	if !ok {
		st = StatusPending
		// No status word means pending in the fence dialect and in a suffix
		// of key=value tokens (`(sandbox=false)`); an empty `()` is odd.
		if chosen.word != "" || dialect == DialectSuffix && len(chosen.extra) == 0 {
			span := chosen.span
			if span == (Span{}) {
				span = r.HeaderSpan
			}
			s.addDiag(diag(span, SeverityWarning, CodeUnknownStatus, r.ID,
				"Unknown status `%s` (expected pending, approved, rejected, denied, aborted or error); read as pending", chosen.word))
		}
	}
	r.Status = st
	if st.IsPlaceholder() {
		r.Dialect = dialect
	}
}

func hasKey(kvs []KV, key string) bool {
	for _, kv := range kvs {
		if kv.Key == key {
			return true
		}
	}
	return false
}

// Meta is the result's key=value tokens as written back on a rewrite
// ("job=JOB"), "" without any.
func (r *ToolResult) Meta() string {
	var b strings.Builder
	for i, kv := range r.Extra() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(kv.Key + "=" + kv.Value)
	}
	return b.String()
}
