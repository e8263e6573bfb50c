package contextwin

import "github.com/chatls/chatls/chatdoc"

// Two rates turn bytes into tokens, both rounding up (an estimate that
// errs low lets a request overflow; one that errs high only warns early).
const (
	// bytesPerToken is SPEC §11's "about 4 characters a token", for text
	// added since the provider last counted: usually a few messages, so
	// the rate's error is small next to the counted part.
	bytesPerToken = 4
	// Without any count the whole document is estimated at 3.5 bytes a
	// token (2 tokens per 7 bytes): tool inputs, paths, code and command
	// output tokenize denser than prose, and the request carries a system
	// prompt and tool schemas the document does not show.
	uncountedTokens, uncountedBytes = 2, 7
)

// LastUsage is what the provider counted for the newest response.
type LastUsage struct {
	// InputTokens is that response's whole size: its input, cache read,
	// cache write and output tokens (the output is in the next request).
	InputTokens int
	// At is an offset inside that response's message in the snapshot being
	// estimated, such as its `@Assistant:` marker (the session moves it with
	// every change). What follows the end of that message was added since.
	At int
}

// Size is an estimate of the next request's size.
type Size struct {
	Tokens int // the estimate: Counted plus what was added since
	// Counted is the provider's count it starts from, 0 without one.
	Counted int
	// AddedBytes are the bytes estimated by rate: after the counted
	// response, or the whole document without a count.
	AddedBytes int
	// FileTokens are the attachments' tokens (Estimator.FileTokens)
	// included in Tokens.
	FileTokens int
}

// Without is the estimate once bytes of the document's text are gone
// (trimmed), at the rate that estimated them: 4 bytes a token after a
// count, 3.5 without one. Bytes the count included come off at 4 bytes a
// token too, rounded down: the estimate stays on the high side.
func (s Size) Without(bytes int) int {
	if s.Counted > 0 {
		return max(0, s.Tokens-bytes/bytesPerToken)
	}
	return max(0, s.Tokens-bytes*uncountedTokens/uncountedBytes)
}

// Estimator estimates request sizes. The zero value counts text only.
type Estimator struct {
	// FileTokens, when set, is what an `@./file` reference adds to the
	// request (AttachmentTokens of its type and size; 0 for a missing
	// file). Only the references after the counted response are asked
	// about: the count includes the earlier ones. The session answers from
	// a cache of stats, so that a keystroke reads no disk.
	FileTokens func(ref *chatdoc.FileRef) int
}

// Estimate is Estimator{}.Estimate: text only.
func Estimate(doc *chatdoc.Document, last *LastUsage) Size {
	return Estimator{}.Estimate(doc, last)
}

// Estimate is the size of the request doc would make now: the last
// response's count plus the bytes after its message at bytesPerToken, or,
// without a count (or when At no longer lies in a message), the whole
// document at 3.5 bytes a token. It reads the parse's message offsets and
// never the text: a keystroke in a 10 MB document costs microseconds
// (BenchmarkEstimateAfterKeystroke).
func (e Estimator) Estimate(doc *chatdoc.Document, last *LastUsage) Size {
	if last != nil && last.At >= 0 && last.At <= doc.Len() {
		if i := doc.MessageIndexAt(last.At); i >= 0 {
			end := doc.MessageSpan(i).End
			s := Size{Counted: last.InputTokens, AddedBytes: doc.Len() - end}
			s.FileTokens = e.fileTokens(doc, end)
			s.Tokens = s.Counted + ceilDiv(s.AddedBytes, bytesPerToken) + s.FileTokens
			return s
		}
	}
	s := Size{AddedBytes: doc.Len(), FileTokens: e.fileTokens(doc, 0)}
	s.Tokens = ceilDiv(s.AddedBytes*uncountedTokens, uncountedBytes) + s.FileTokens
	return s
}

// fileTokens are FileTokens of the references in messages that start at
// or after from. The parts are read as stored, so that a keystroke near
// the top places (copies) none of the messages after it.
func (e Estimator) fileTokens(doc *chatdoc.Document, from int) int {
	if e.FileTokens == nil {
		return 0
	}
	n := 0
	doc.EachPart(func(p chatdoc.Part) {
		if len(p.Stored) == 0 || p.Stored[len(p.Stored)-1].Span.Start+p.Delta < from {
			return
		}
		for _, m := range p.Stored {
			if m.Span.Start+p.Delta < from {
				continue
			}
			for _, ref := range m.FileRefs() {
				n += e.FileTokens(ref)
			}
		}
	})
	return n
}

// imageTokens is what one image costs at most: Anthropic's figure for an
// image at its largest size (about 1.15 megapixels); larger images are
// scaled down before they are counted.
const imageTokens = 1600

// AttachmentTokens is an estimate of an attachment's tokens from its MIME
// type and size: an image at imageTokens whatever its bytes (a 3 MB photo
// is not 750k tokens), anything else at bytesPerToken, which errs high for
// a compressed PDF.
func AttachmentTokens(mime string, size int64) int {
	if len(mime) > 6 && mime[:6] == "image/" {
		return imageTokens
	}
	return int((size + bytesPerToken - 1) / bytesPerToken)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
