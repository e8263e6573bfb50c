package cycle

// Keys are the client's key names for the user's actions (the keys
// setting, from initializationOptions), so that messages say what to press
// rather than name a protocol command.
type Keys map[string]string

// Actions with a key, and the protocol command each one runs.
const (
	KeyAdvance = "advance" // chatls.advance: the next step
	KeySend    = "send"    // chatls.send
	KeyApprove = "approve"
	KeyExplain = "explain"
)

var keyCommands = map[string]string{
	KeyAdvance: "chatls.advance",
	KeySend:    "chatls.send",
	KeyApprove: "the Approve action",
	KeyExplain: "chatls.explain",
}

var keyWords = map[string]string{
	KeyAdvance: "next step",
	KeySend:    "send",
	KeyApprove: "approve",
	KeyExplain: "explain",
}

// Do says how the user does action: "press <C-]> (next step)" when the
// client gave its key, else "run the next step (chatls.advance)".
func (k Keys) Do(action string) string {
	if key := k[action]; key != "" {
		return "press " + key + " (" + keyWords[action] + ")"
	}
	return "run the " + keyWords[action] + " (" + keyCommands[action] + ")"
}
