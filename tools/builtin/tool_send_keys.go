package builtin

import (
	"context"
	"fmt"
	"regexp"

	"github.com/chatls/chatls/tools"
)

type sendKeysTool struct{}

var sendKeysDefinition = define(tools.Definition{Name: "send_keys", Annotations: destructive(),
	Description: "Send keys to the target's tmux pane: tmux key names such as [\"C-c\"] or [\"Up\", \"Enter\"], or literal text typed as is. Give one of keys and literal."},
	optional("keys", "array", "tmux key names, e.g. [\"C-c\"], [\"q\"], [\"Up\", \"Enter\"]").with("items", map[string]any{"type": "string"}),
	optional("literal", "string", "Text typed as is (add [\"Enter\"] in another call to submit it)"),
	optional("target", "string", "The tmux pane (default: the session's pane)"))

func (sendKeysTool) PaneOnly() {}

func (sendKeysTool) Definition() tools.Definition { return sendKeysDefinition() }

// keyName is a tmux key name: letters, digits and - (C-c, M-x, Enter, F1,
// Up), or one printable character; never an option.
var keyName = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9-]*|[[:graph:]])$`)

func (sendKeysTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	if env.Target == nil || env.Target.Tmux == nil {
		return errorResult("send_keys needs a target with tmux = true")
	}
	literal, _ := tools.StringArg(call.Input, "literal")
	pane, _ := tools.StringArg(call.Input, "target")
	var keys []string
	if list, ok := call.Input["keys"].([]any); ok {
		for _, k := range list {
			s, _ := k.(string)
			if !keyName.MatchString(s) {
				return errorResult("%q is not a tmux key name (examples: C-c, Enter, Up, q); use literal for text", s)
			}
			keys = append(keys, s)
		}
	}
	if (len(keys) == 0) == (literal == "") {
		return errorResult("Give either keys (tmux key names) or literal (text), not both and not neither")
	}
	used, err := env.Target.Tmux.SendKeys(ctx, pane, keys, literal)
	if err != nil {
		return errorResult("%s", capitalize(err.Error()))
	}
	if literal != "" {
		return tools.Result{Text: fmt.Sprintf("Typed %d characters into tmux pane %s.", len([]rune(literal)), used)}
	}
	return tools.Result{Text: fmt.Sprintf("Sent %v to tmux pane %s.", keys, used)}
}
