package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/frontmatter"
	"github.com/chatls/chatls/provider"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/builtin"
	"github.com/chatls/chatls/tools/lsp"
)

// buildRequest is the document as a request to its provider: the prompt
// (its tools are added when their sources are ready: toolDefinitions), the
// provider and model its settings and frontmatter choose, the key.
func (s *Session) buildRequest(ctx context.Context, ds *Doc, doc *chatdoc.Document) (*provider.Request, error) {
	return s.buildRequestFor(ctx, ds, doc, "")
}

// buildRequestFor is buildRequest with the model given (model non-empty:
// `provider/model` or `model`, which the document's frontmatter does not
// override — context.summaryModel).
func (s *Session) buildRequestFor(ctx context.Context, ds *Doc, doc *chatdoc.Document, model string) (*provider.Request, error) {
	eff := s.settings.effectiveFor(ds.path)
	home, _ := os.UserHomeDir()
	// The tools are added when their sources are ready (toolDefinitions).
	prompt, problems := provider.BuildPrompt(doc, provider.PromptOptions{DocPath: ds.path, Home: home})
	for _, p := range problems {
		if p.Severity == provider.Error {
			return nil, fmt.Errorf("not sent: %s (line %d)", p.Message, doc.Lines.Position(p.Span.Start, chatdoc.UTF8).Line+1)
		}
	}
	entries, err := provider.Entries(eff.Providers)
	if err != nil {
		return nil, err
	}
	var ops []frontmatter.OptionOp
	if model != "" {
		eff.Model = model
	} else if doc.Frontmatter != nil {
		ops = frontmatter.Evaluate(doc.Frontmatter).Options
	}
	sel, ignored, err := provider.Select(eff, entries, ops)
	for _, p := range ignored {
		s.showMessage(MessageWarning, fmt.Sprintf("chatls: line %d: %s", p.Line+1, p.Message))
	}
	if err != nil {
		return nil, err
	}
	return provider.Prepare(ctx, sel, &s.keys, prompt, eff.Send.MaxRetries)
}

// toolDefinitions are the tools the request offers: every tool of the
// registry (tools.enabled keeps the ones it names), once every source is
// ready or tools.defaultTimeout passed — then the missing ones are named.
func (s *Session) toolDefinitions(ctx context.Context, ds *Doc) ([]provider.ToolDef, error) {
	eff := s.settings.effectiveFor(ds.path)
	descs, err := s.tools.Describe(ctx, time.Duration(eff.DefaultTimeout)*time.Second, s.workspaceRoot(ds.path))
	if err != nil {
		return nil, err
	}
	if s.toolSet.Loading() {
		s.showMessage(MessageWarning, fmt.Sprintf("chatls: some tool sources did not load within %d s (tools.defaultTimeout); sent without their tools", eff.DefaultTimeout))
	}
	inRepo := ds.path != "" && builtin.InGitRepository(filepath.Dir(ds.path))
	lspReady := s.tools.LSP.Available()
	var offered []tools.Definition
	for _, d := range descs {
		if len(eff.Enabled) > 0 && !slices.Contains(eff.Enabled, d.Name) {
			continue
		}
		if builtin.GitTool(d.Name) && d.Source == "builtin" && !inRepo {
			continue // offered where they can work: inside a git repository
		}
		if lsp.IsTool(d.Name) && d.Source == "builtin" && !lspReady {
			continue // and with a language server on PATH
		}
		offered = append(offered, tools.Definition{Name: d.Name, Description: d.Description, Schema: d.Schema, Source: d.Source})
	}
	// A remote target offers the tools that reach it (and tmux's own).
	var defs []provider.ToolDef
	for _, d := range tools.OfferedOnTarget(s.targetFor(ds, s.latest(ds)), offered) {
		defs = append(defs, provider.ToolDef{Name: d.Name, Description: d.Description, Schema: d.Schema})
	}
	return defs, nil
}
