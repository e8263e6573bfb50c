package session

import (
	"fmt"
	"strings"

	"github.com/chatls/chatls/acp"
	"github.com/chatls/chatls/chatdoc"
)

// CommandAgentOption answers the agent's permission request with one of
// the options it offered (SPEC §12): {uri, id, option}.
const CommandAgentOption = "chatls.agentOption"

// agentAsk is a permission of the agent's that waits for the user: the
// options it offered, which the code actions show by name, and the one
// the user chose by its action.
type agentAsk struct {
	options []acp.Option
	chosen  *acp.Option   // set once, under Session.mu
	decided chan struct{} // closed once the placeholder shows the choice
}

// AgentOption is one of the options the agent offers for a call whose
// permission waits: a code action titled Name.
type AgentOption struct {
	ID, Name, Kind string
}

// allows says whether choosing the option lets the call run.
func allows(kind string) bool { return strings.HasPrefix(kind, "allow_") }

// lookup is the document's agent, or nil: unlike forDoc it adds none.
func (p *agentPool) lookup(ds *Doc) *docAgent {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.docs[ds]
}

// AgentOptions are the options the agent offered for call id, in its
// order, while its permission waits for the user; nil otherwise.
func (s *Session) AgentOptions(ds *Doc, id string) []AgentOption {
	a := s.agents.lookup(ds)
	if a == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ask := a.asks[id]
	if ask == nil || ask.chosen != nil {
		return nil
	}
	out := make([]AgentOption, 0, len(ask.options))
	for _, o := range ask.options {
		out = append(out, AgentOption{ID: o.ID, Name: o.Name, Kind: o.Kind})
	}
	return out
}

// ChooseAgentOption is chatls.agentOption: the agent's permission request
// for call id is answered with the option it offered as optionID. The
// placeholder shows the choice first — approved for an allow option,
// denied for a reject one — then the agent gets its answer, so the call's
// result, which replaces the placeholder, comes after.
func (s *Session) ChooseAgentOption(ds *Doc, id, optionID string) error {
	a := s.agents.lookup(ds)
	s.mu.Lock()
	var ask *agentAsk
	if a != nil {
		ask = a.asks[id]
	}
	if ask == nil || ask.chosen != nil {
		s.mu.Unlock()
		return badRequest(fmt.Errorf("the agent does not ask about %s (any more): its permission was answered or the turn ended", id))
	}
	var chosen *acp.Option
	for i := range ask.options {
		if ask.options[i].ID == optionID {
			chosen = &ask.options[i]
		}
	}
	if chosen == nil {
		s.mu.Unlock()
		return badRequest(fmt.Errorf("the agent offers no option %q for %s", optionID, id))
	}
	ask.chosen = chosen
	s.mu.Unlock()
	to := chatdoc.StatusDenied
	if allows(chosen.Kind) {
		to = chatdoc.StatusApproved
	}
	s.editDocument(ds, "chatls: "+chosen.Name, func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		r := doc.ToolResult(id)
		if r == nil || !r.IsPlaceholder() || r.Status != chatdoc.StatusPending {
			return nil, nil
		}
		return chatdoc.SetStatus(doc, id, to)
	})
	close(ask.decided)
	return nil
}
