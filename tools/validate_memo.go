package tools

import (
	"hash/maphash"
	"strings"
	"sync"
)

// validationMemo remembers a compiled schema's verdicts by the input's text,
// for editor diagnostics: after a keystroke in a 10 MB conversation, 15,000
// unchanged inputs are hashed instead of validated again. Entries live in
// two generations; when the current one fills, it becomes the previous one
// and the older is dropped, so memory stays bounded by the inputs in use
// (a hit in the previous generation moves to the current one).
//
// Only diagnostics use it: the cycle's gate validates every input it runs
// (Registry.Validate), never trusting a hash.
type validationMemo struct {
	mu        sync.Mutex
	cur, prev map[memoKey][]ValidationError
}

// memoKey is two independent 64-bit hashes of the input text and its
// length: a false hit would need both to collide.
type memoKey struct {
	a, b uint64
	n    int
}

// memoGeneration bounds each generation: more than the tool uses of the
// largest conversation measured (15,000 in 10 MB).
const memoGeneration = 1 << 15

var memoSeedA, memoSeedB = maphash.MakeSeed(), maphash.MakeSeed()

func memoKeyOf(text string) memoKey {
	return memoKey{maphash.String(memoSeedA, text), maphash.String(memoSeedB, text), len(text)}
}

func (m *validationMemo) get(k memoKey) ([]ValidationError, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.cur[k]; ok {
		return v, true
	}
	v, ok := m.prev[k]
	if ok {
		m.putLocked(k, v)
	}
	return v, ok
}

func (m *validationMemo) put(k memoKey, v []ValidationError) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.putLocked(k, v)
}

func (m *validationMemo) putLocked(k memoKey, v []ValidationError) {
	if m.cur == nil || len(m.cur) >= memoGeneration {
		m.prev, m.cur = m.cur, make(map[memoKey][]ValidationError, 1024)
	}
	m.cur[k] = v
}

// ValidateText is Validate for an input whose JSON text is at hand, with
// the verdict remembered by that text (see validationMemo): for editor
// diagnostics, which validate every input of a document after each change.
// decode turns the text into the input, and is called only when the
// verdict is neither remembered nor clear from the text (quickSchema).
// The result is shared between calls: do not modify it.
func (r *Registry) ValidateText(name, text string, decode func(string) map[string]any) []ValidationError {
	cs, errs, ok := r.compiled(name)
	if !ok {
		return errs
	}
	// A valid input of a flat schema is clear from its text: as quick to
	// see as to look up, and not worth remembering.
	if cs.quick != nil && cs.quick.valid(text) {
		return nil
	}
	k := memoKeyOf(text)
	if v, hit := cs.memo.get(k); hit {
		return v
	}
	v := ownStrings(cs.validate(decode(text)))
	cs.memo.put(k, v)
	return v
}

// ownStrings copies the strings of errs that may be substrings of an input
// (a key in Path): a remembered verdict must not keep the document it came
// from alive, nor point into a file `chatls check` has unmapped since.
func ownStrings(errs []ValidationError) []ValidationError {
	if errs == nil {
		return nil
	}
	owned := make([]ValidationError, len(errs))
	for i, e := range errs {
		owned[i].Message = strings.Clone(e.Message)
		if e.Path != nil {
			owned[i].Path = make([]string, len(e.Path))
		}
		for j, key := range e.Path {
			owned[i].Path[j] = strings.Clone(key)
		}
	}
	return owned
}
