package framing

import (
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/chatls/chatls/internal/jsonfast"
)

// A didOpen of a 10 MB document, or a didChange that sends the whole text,
// carries one huge string. encoding/json reads it twice (a validity scan,
// then the decode), slowly; Lift hands it to the fast reader instead.

// liftMin is the length of a "text" value's token from which Lift decodes
// it itself (a variable so tests can lift small strings).
var liftMin = 4 << 10

// Lifted holds the strings Lift took out of params, for Restore.
type Lifted struct {
	prefix string // "\x00chatls.lifted:NONCE:", unguessable by the client
	values []string
}

// Lift returns params with the value of every member named exactly "text"
// whose string token is at least liftMin bytes replaced by a short
// placeholder string, and those strings, decoded by the fast reader as
// encoding/json would decode them. json.Unmarshal of small then fills the
// same fields as of params, with placeholders where the long strings were;
// the handler puts each back with Restore. ok is false when there is
// nothing to lift or the fast reader refuses params (then decode params as
// they are; encoding/json gives the error).
func Lift(params []byte) (small []byte, lifted *Lifted, ok bool) {
	text := bytesView(params)
	var spans [][2]int
	if !jsonfast.EachNamedString(text, "text", func(start, end int) {
		if end-start >= liftMin {
			spans = append(spans, [2]int{start, end})
		}
	}) || len(spans) == 0 {
		return nil, nil, false
	}
	lifted = &Lifted{prefix: "\x00chatls.lifted:" + strconv.FormatUint(rand.Uint64(), 36) + ":"}
	last := 0
	for i, sp := range spans {
		v, ok := jsonfast.Unquote(text[sp[0]:sp[1]])
		if !ok {
			return nil, nil, false
		}
		lifted.values = append(lifted.values, v)
		small = append(small, params[last:sp[0]]...)
		small = append(small, `"\u0000`+lifted.prefix[1:]+strconv.Itoa(i)+`"`...)
		last = sp[1]
	}
	return append(small, params[last:]...), lifted, true
}

// Restore puts back the string *s stands for when it is one of l's
// placeholders; any other string stays as it is.
func (l *Lifted) Restore(s *string) {
	rest, ok := strings.CutPrefix(*s, l.prefix)
	if !ok {
		return
	}
	if i, err := strconv.Atoi(rest); err == nil && i >= 0 && i < len(l.values) {
		*s = l.values[i]
	}
}
