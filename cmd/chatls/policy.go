package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/tools/builtin"
	"github.com/chatls/chatls/tools/lsp"
)

const policyUsage = `usage: chatls policy check TOOL 'JSON-INPUT' [--file DOC.chat] [--config FILE] [--target NAME]
prints the decision (approve, require_approval or deny) on the first line, then the trace;
--target decides as for a call on that target (its own autoApprove and deny lists)`

// runPolicy implements `chatls policy check`.
func runPolicy(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintln(stderr, policyUsage)
		return 2
	}
	var pos []string
	req := approval.CheckRequest{}
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		name, val, hasVal := strings.Cut(a, "=")
		switch name {
		case "--file", "-file", "--config", "-config", "--target", "-target":
			if !hasVal {
				if i+1 >= len(rest) {
					fmt.Fprintf(stderr, "%s needs a value\n%s\n", name, policyUsage)
					return 2
				}
				i++
				val = rest[i]
			}
			switch strings.TrimLeft(name, "-") {
			case "file":
				req.DocPath = val
			case "config":
				req.ConfigPath = val
			default:
				req.Target = val
			}
		case "-h", "--help", "-help":
			fmt.Fprintln(stdout, policyUsage)
			return 0
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) != 2 {
		fmt.Fprintln(stderr, policyUsage)
		return 2
	}
	req.Tool, req.Input = pos[0], pos[1]
	if configMissing(req.ConfigPath, stderr) {
		return 2
	}
	if !builtinTool(req.Tool) {
		fmt.Fprintf(stderr, "warning: %s is not a built-in tool: a call to it works only when a plugin or MCP server of your config offers it (chatls tools lists them)\n", req.Tool)
	}
	if req.DocPath != "" {
		ops, fmErr, err := documentFrontmatterOps(req.DocPath)
		if err != nil {
			fmt.Fprintf(stderr, "chatls: read frontmatter of %s: %v\n", req.DocPath, err)
			return 1
		}
		req.Frontmatter, req.FrontmatterError = ops, fmErr
	}
	v, warns, err := approval.CheckCommand(context.Background(), req)
	for _, w := range warns {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if err != nil {
		fmt.Fprintf(stderr, "chatls: %v\n", err)
		return 1
	}
	if len(v.Steps) > 0 && v.Steps[0].Resolver == approval.ConfigErrorResolver {
		// Still a decision (SPEC §6): the error is in the trace and here.
		fmt.Fprintf(stderr, "chatls: %s\n", v.Steps[0].Reason)
	}
	fmt.Fprint(stdout, v.Format())
	if req.Tool == "bash" {
		fmt.Fprintln(stdout, sandboxLine(req))
	}
	return 0
}

// builtinTool says whether name is one of chatls's own tools.
func builtinTool(name string) bool {
	if lsp.IsTool(name) {
		return true
	}
	for _, t := range builtin.Tools(builtin.Options{}) {
		if t.Definition().Name == name {
			return true
		}
	}
	return false
}
