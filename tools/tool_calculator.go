package tools

import (
	"context"
	"math"
	"strconv"
	"sync"
)

type calculatorTool struct{}

// calculatorDefinition is built once: Definition is called per validation and preview.
var calculatorDefinition = sync.OnceValue(calculatorTool{}.definition)

func (calculatorTool) Definition() Definition { return calculatorDefinition() }

func (calculatorTool) Preview(in map[string]any) string {
	expr, _ := StringArg(in, "expression")
	return expr
}

func (calculatorTool) Fileless() {}

func (calculatorTool) definition() Definition {
	return Definition{
		Name: "calculator",
		Description: "Evaluate an arithmetic expression: + - * / % ^ (or **), parentheses, unary minus, decimals, " +
			"and the functions sqrt abs floor ceil round ln log exp sin cos tan with constants pi and e.",
		Source: "builtin",
		Schema: strictSchema(
			required("expression", "string", "The expression to evaluate, e.g. '17 * 23'").with("maxLength", maxExpressionLength),
		),
	}
}

func (calculatorTool) Run(ctx context.Context, call Call, env Env) Result {
	expr, _ := StringArg(call.Input, "expression")
	v, err := evaluateArithmetic(expr)
	if err != nil {
		return errorResult("Cannot evaluate %q: %v", cutRunes(expr, 200), err)
	}
	return Result{Text: FormatNumber(v)}
}

// FormatNumber prints integers without a fraction and other values with the
// fewest digits that round-trip.
func FormatNumber(v float64) string {
	if v == 0 {
		return "0" // also for -0
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e21 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
