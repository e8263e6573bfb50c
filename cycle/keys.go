package cycle

// Keys are the client's key names for the user's actions (the keys
// setting, from initializationOptions), so that messages say what to press
// rather than name a protocol command.
type Keys map[string]string

// The actions messages name (the keys setting has more, for clients), and
// what each is called without a key.
const (
	KeyAdvance = "advance" // chatls.advance: the next step
	KeyApprove = "approve" // the Approve code action
)

// keyless is how each action is done without a key.
var keyless = map[string]string{
	KeyAdvance: "run the next step (chatls.advance)",
	KeyApprove: "use the Approve code action (or change status=pending to status=approved)",
}

var keyWords = map[string]string{
	KeyAdvance: "next step",
	KeyApprove: "approve",
}

// Do says how the user does action: "press <C-]> (next step)" when the
// client gave its key, else "run the next step (chatls.advance)".
func (k Keys) Do(action string) string {
	if key := k[action]; key != "" {
		return "press " + key + " (" + keyWords[action] + ")"
	}
	return keyless[action]
}
