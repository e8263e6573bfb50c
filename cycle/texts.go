package cycle

import "fmt"

// Fixed result texts (SPEC §1) and the cycle's own notes.
const (
	TextDenied    = "The tool was denied by a policy."
	TextRejected  = "This tool has been rejected by the user."
	TextAborted   = "Response interrupted by the user."
	TextCancelled = "User aborted tool execution."
	TextNoOutput  = "(no output)"
	TextNoJournal = "chatls cannot record tool executions (see its log: the state directory is not writable), so the tool was not run."
	// TextRecordedNote follows the recorded output of a tool that finished
	// earlier (this session or before a restart) when its placeholder is
	// found again: the tool runs at most once per ID (SPEC §2).
	TextRecordedNote = "[chatls: recorded result of the run that finished at %s; the tool was not run again.]"
	// TextRanBefore is written when the journal knows the tool finished but
	// not its output (a journal from an older chatls).
	TextRanBefore = "This tool already ran (finished at %s), but its output was not recorded; chatls did not run it again."
	// TextOutputSaved follows the user's text in a block they wrote into
	// while its tool ran: their text is the result, the output is kept.
	TextOutputSaved = "[chatls: you wrote in this block while the tool ran, so your text is the result; the tool's output is saved in %s]"
	// TextOutputInline replaces TextOutputSaved when no file can be written.
	TextOutputInline = "[chatls: you wrote in this block while the tool ran, so your text is the result; the tool's output could not be saved to a file, so here it is:]"
	// TextReusedID answers a tool use whose ID an earlier one has (SPEC §1).
	TextReusedID = "Tool use ID %s is already used earlier in this conversation; the call was not run."
	// TextUnknownTool answers a call to a tool chatls does not offer, with
	// TextDidYouMean when a name is close.
	TextUnknownTool = "Unknown tool: %s"
	TextDidYouMean  = " (did you mean %s?)"
)

// Session diagnostics: messages and codes.
const (
	MsgApprovedBefore = "approved before this session; approve again to run"
	// MsgOrphanUse is the hint on a tool use of an earlier turn without a
	// result (history, SPEC §2): it never runs and is sent with the
	// synthetic result.
	MsgOrphanUse    = "tool use of an earlier turn without a result: it is sent with \"No result provided\" and never runs"
	MsgRevoked      = "the tool's input changed after approval; approve again to run"
	MsgWaitingTools = "Waiting for tool definitions to load..."
	MsgAlreadyRan   = "this tool already ran; %s to write its result"
	// MsgCutAnswer says what to do after CutAnswer closed an answer.
	MsgCutAnswer = "the last answer was cut off when chatls stopped while it streamed; it is marked as interrupted: write your question under the new @You: and send"
	// MsgDuplicateIDs is advance's message while tool uses share an ID.
	MsgDuplicateIDs = "tool uses share the ID %s: nothing runs for it until each tool use has its own ID"

	CodePending      = "pending-approval"
	CodeApprovedOld  = "approved-before-session"
	CodeRevoked      = "approval-revoked"
	CodeUnanswered   = "unanswered-tool-use"
	CodeRunning      = "tool-running"
	CodeWaitingTools = "waiting-for-tools"
	CodeAlreadyRan   = "already-ran"
)

// TextInterrupted is the result of a tool that a chatls which stopped
// (crash, kill, restart) had started: it is never run again (SPEC §2).
const TextInterrupted = "chatls stopped while this tool was running; it was not run again."

// UnknownTool is the error result of a call to a tool chatls does not
// offer; suggestion is the closest known name ("" when none is close).
func UnknownTool(name, suggestion string) string {
	text := fmt.Sprintf(TextUnknownTool, name)
	if suggestion != "" && suggestion != name {
		text += fmt.Sprintf(TextDidYouMean, suggestion)
	}
	return text
}
