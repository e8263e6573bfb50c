package builtin

import (
	"context"

	"github.com/chatls/chatls/internal/clip"
	"github.com/chatls/chatls/tools"
)

type calculatorTool struct{ readsOnly }

var calculatorDefinition = define(tools.Definition{
	Name: "calculator",
	Description: "Evaluate an arithmetic expression: + - * / % ^ (or **), parentheses, unary minus, decimals, " +
		"and the functions sqrt abs floor ceil round ln log exp sin cos tan with constants pi and e.",
},
	required("expression", "string", "The expression to evaluate, e.g. '17 * 23'").with("maxLength", maxExpressionLength),
)

func (calculatorTool) Definition() tools.Definition { return calculatorDefinition() }

func (calculatorTool) Preview(in map[string]any) string {
	expr, _ := tools.StringArg(in, "expression")
	return expr
}

func (calculatorTool) Fileless() {}

func (calculatorTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	expr, _ := tools.StringArg(call.Input, "expression")
	v, err := evaluateArithmetic(expr)
	if err != nil {
		return errorResult("Cannot evaluate %q: %v", clip.Head(expr, 200), err)
	}
	return tools.Result{Text: tools.FormatNumber(v)}
}
