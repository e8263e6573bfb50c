package e2e

import (
	"slices"
	"testing"
)

type tokensResult struct {
	ResultID string    `json:"resultId"`
	Data     *[]uint32 `json:"data"`
	Edits    *[]struct {
		Start       int      `json:"start"`
		DeleteCount int      `json:"deleteCount"`
		Data        []uint32 `json:"data"`
	} `json:"edits"`
}

func (s *session) semanticTokens(method, uri string, previous string) tokensResult {
	s.t.Helper()
	params := map[string]any{"textDocument": map[string]any{"uri": uri}}
	if previous != "" {
		params["previousResultId"] = previous
	}
	var out tokensResult
	if err := s.c.Call(s.ctx, method, params, &out); err != nil {
		s.t.Fatalf("%s: %v", method, err)
	}
	if out.ResultID == "" {
		s.t.Fatalf("%s: no resultId", method)
	}
	return out
}

// semanticTokens/full/delta: against the last result the edits turn the old
// array into exactly what a fresh full request returns; against an unknown
// previousResultId the answer is the full array.
func TestSemanticTokensDelta(t *testing.T) {
	s := start(t, sessionOptions{})
	uri := s.open("tokens.chat", surfaceDoc(pendingResult("t1"),
		[3]string{"bash", "t1", `{"command":"ls","timeout":null}`}))
	const full, delta = "textDocument/semanticTokens/full", "textDocument/semanticTokens/full/delta"

	first := s.semanticTokens(full, uri, "")
	if first.Data == nil || len(*first.Data) == 0 || len(*first.Data)%5 != 0 {
		t.Fatalf("full: %+v", first)
	}
	// New messages with a file reference and thinking: tokens are added in
	// the middle and later lines move. (No tool use, which autopilot would
	// answer, changing the document again.)
	if err := s.c.Replace(s.ctx, uri, "@You:\ngo\n", "@You:\ngo on @./x.md\n\n@Assistant:\n<thinking>\nhmm\n</thinking>\nok\n\n@You:\nagain\n"); err != nil {
		t.Fatal(err)
	}
	d := s.semanticTokens(delta, uri, first.ResultID)
	if d.Edits == nil || d.Data != nil {
		t.Fatalf("a delta against the last result must be edits, got %+v", d)
	}
	applied := slices.Clone(*first.Data)
	// Edits refer to the old array; apply from the last so offsets hold.
	edits := *d.Edits
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		applied = slices.Replace(applied, e.Start, e.Start+e.DeleteCount, e.Data...)
	}
	fresh := s.semanticTokens(full, uri, "")
	if !slices.Equal(applied, *fresh.Data) {
		t.Errorf("the delta applied to the old tokens:\n%v\nis not the fresh full result:\n%v", applied, *fresh.Data)
	}
	if slices.Equal(*first.Data, *fresh.Data) {
		t.Fatal("the edit must change the tokens (else the test proves nothing)")
	}

	unknown := s.semanticTokens(delta, uri, "no-such-result")
	if unknown.Data == nil || unknown.Edits != nil || !slices.Equal(*unknown.Data, *fresh.Data) {
		t.Errorf("an unknown previousResultId must get the full tokens, got %+v", unknown)
	}
	if unknown.ResultID == fresh.ResultID {
		t.Errorf("every answer needs a new resultId")
	}
	// The last answer is the base of the next delta: nothing changed since.
	if same := s.semanticTokens(delta, uri, unknown.ResultID); same.Edits == nil || len(*same.Edits) != 0 {
		t.Errorf("no change since the last result: want no edits, got %+v", same)
	}
}
