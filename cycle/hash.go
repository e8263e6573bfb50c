package cycle

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/chatls/chatls/chatdoc"
)

// InputHash identifies a tool call — its name and input — so an approval
// can be tied to exactly what the user saw. The decoded object is
// re-encoded (encoding/json sorts keys), so whitespace edits don't revoke an
// approval but any change of meaning does. The decision log records the
// same value.
func InputHash(u *chatdoc.ToolUse) string {
	var data []byte
	if input := u.Input(); input != nil {
		data, _ = json.Marshal(input)
	} else {
		data = []byte(u.RawInput)
	}
	sum := sha256.Sum256(append([]byte(u.Name+"\x00"), data...))
	return hex.EncodeToString(sum[:12])
}
