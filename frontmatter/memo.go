package frontmatter

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"sync"

	"github.com/chatls/chatls/chatdoc"
)

// memoSize is how many evaluations are kept: the frontmatters of the open
// documents, and a few being typed. Each holds at most what the sandbox let
// a script build.
const memoSize = 32

// memo keeps the latest evaluations by a hash of what they depend on. A
// cryptographic hash, since the options decide what runs without asking:
// two codes must never share an entry.
var memo = &evalMemo{entries: map[[sha256.Size]byte]*memoEntry{}}

type evalMemo struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]*memoEntry
	order   [][sha256.Size]byte // least recently used first
}

// memoEntry is evaluated once, by the first caller; others wait for it.
type memoEntry struct {
	once sync.Once
	ev   *Evaluation
}

func memoKey(fm *chatdoc.Frontmatter) [sha256.Size]byte {
	h := sha256.New()
	var n [8]byte
	for _, v := range []int{fm.CodeStart, fm.Opener.End, len(fm.Language)} {
		binary.LittleEndian.PutUint64(n[:], uint64(v))
		h.Write(n[:])
	}
	h.Write([]byte(fm.Language))
	h.Write([]byte(fm.Code))
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

func (m *evalMemo) get(fm *chatdoc.Frontmatter, eval func(*chatdoc.Frontmatter) *Evaluation) *Evaluation {
	key := memoKey(fm)
	m.mu.Lock()
	e, ok := m.entries[key]
	if ok {
		m.order = slices.DeleteFunc(m.order, func(k [sha256.Size]byte) bool { return k == key })
	} else {
		e = &memoEntry{}
		m.entries[key] = e
		if len(m.order) == memoSize {
			delete(m.entries, m.order[0])
			m.order = slices.Delete(m.order, 0, 1)
		}
	}
	m.order = append(m.order, key)
	m.mu.Unlock()
	e.once.Do(func() { e.ev = eval(fm) })
	if e.ev == nil { // the first caller's evaluation panicked: it got the panic
		return eval(fm)
	}
	return e.ev
}
