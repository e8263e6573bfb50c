package session

import (
	"fmt"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
)

// InsertTitle is the action that categorizes unanswered tool uses (SPEC §3).
const InsertTitle = "Insert approval placeholders"

// Offer is one thing the user can do about a call, with the words every
// editor shows for it (a code action's title, a menu entry).
type Offer struct {
	Action cycle.Action
	Title  string
	// Rule and Scope are "Always allow"'s: the rule and where it goes
	// ("workspace", or "user" when the workspace's file would not count).
	Rule, Scope string
}

// Offers are what the user can do about the call u (r its result, or nil)
// in doc, in the order a menu shows them.
func (s *Session) Offers(ds *Doc, doc *chatdoc.Document, r *chatdoc.ToolResult, u *chatdoc.ToolUse) []Offer {
	var out []Offer
	for _, a := range s.Actions(ds, doc, r, u) {
		o := Offer{Action: a}
		switch a {
		case cycle.ActCancel:
			o.Title = "Cancel"
		case cycle.ActInsert:
			o.Title = InsertTitle
		case cycle.ActApprove:
			o.Title = "Approve " + s.Preview(ds, doc, u)
		case cycle.ActApproveOutside:
			o.Title = "Approve bash outside the sandbox"
		case cycle.ActApproveOutsideNetwork:
			o.Title = "Approve bash outside the sandbox with network"
		case cycle.ActRunNow:
			o.Title = "Run now"
		case cycle.ActAskAgain:
			o.Title = fmt.Sprintf("Ask again for %s (set to pending, then approve)", u.Name)
		case cycle.ActReject:
			o.Title = "Reject " + u.Name
		case cycle.ActAlwaysAllow:
			rule, workspace := s.SuggestRule(ds, u)
			if rule == "" {
				continue
			}
			// A rule in the .chatls.toml of an untrusted workspace would
			// have no effect: it goes to the user config, and the title
			// says so.
			o.Rule, o.Scope, o.Title = rule, "workspace", fmt.Sprintf("Always allow %s in this workspace", rule)
			if !workspace {
				o.Scope, o.Title = "user", fmt.Sprintf("Always allow %s everywhere (in your user config)", rule)
			}
		default:
			continue
		}
		out = append(out, o)
	}
	return out
}
