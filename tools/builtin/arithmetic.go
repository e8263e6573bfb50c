package builtin

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxExpressionLength and maxExpressionDepth keep the recursive-descent
// parser's work and stack bounded on hostile input.
const (
	maxExpressionLength = 10000
	maxExpressionDepth  = 200
)

// evaluateArithmetic parses and evaluates expr; there is no eval and no
// access to anything but the functions below.
//
//	expr    = term { ("+" | "-") term }
//	term    = unary { ("*" | "/" | "%") unary }
//	unary   = ("-" | "+") unary | power
//	power   = primary [ ("^" | "**") unary ]      (right-assoc; -2^2 = -4)
//	primary = number | constant | func "(" expr ")" | "(" expr ")"
func evaluateArithmetic(expr string) (float64, error) {
	if len(expr) > maxExpressionLength {
		return 0, fmt.Errorf("expression longer than %d characters", maxExpressionLength)
	}
	p := &arithParser{src: expr}
	p.skipSpace()
	if p.pos == len(p.src) {
		return 0, errors.New("empty expression")
	}
	v, err := p.expr(0)
	if err != nil {
		return 0, err
	}
	p.skipSpace()
	if p.pos < len(p.src) {
		return 0, fmt.Errorf("unexpected %q at position %d", p.src[p.pos], p.pos+1)
	}
	if math.IsNaN(v) {
		return 0, errors.New("result is not a number")
	}
	if math.IsInf(v, 0) {
		return 0, errors.New("result is too large")
	}
	return v, nil
}

type arithParser struct {
	src string
	pos int
}

var arithFunctions = map[string]func(float64) float64{
	"sqrt": math.Sqrt, "abs": math.Abs, "floor": math.Floor, "ceil": math.Ceil,
	"round": math.Round, "ln": math.Log, "log": math.Log10, "exp": math.Exp,
	"sin": math.Sin, "cos": math.Cos, "tan": math.Tan,
}

var arithConstants = map[string]float64{"pi": math.Pi, "e": math.E}

func (p *arithParser) skipSpace() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *arithParser) peek(s string) bool {
	p.skipSpace()
	return strings.HasPrefix(p.src[p.pos:], s)
}

func (p *arithParser) expr(depth int) (float64, error) {
	if depth > maxExpressionDepth {
		return 0, errors.New("expression nested too deeply")
	}
	left, err := p.term(depth)
	if err != nil {
		return 0, err
	}
	for {
		switch {
		case p.peek("+"):
			p.pos++
			right, err := p.term(depth)
			if err != nil {
				return 0, err
			}
			left += right
		case p.peek("-"):
			p.pos++
			right, err := p.term(depth)
			if err != nil {
				return 0, err
			}
			left -= right
		default:
			return left, nil
		}
	}
}

func (p *arithParser) term(depth int) (float64, error) {
	left, err := p.unary(depth)
	if err != nil {
		return 0, err
	}
	for {
		var op byte
		switch {
		case p.peek("**"):
			return left, nil // handled by power; cannot happen after unary
		case p.peek("*"), p.peek("/"), p.peek("%"):
			op = p.src[p.pos]
		default:
			return left, nil
		}
		p.pos++
		right, err := p.unary(depth)
		if err != nil {
			return 0, err
		}
		switch op {
		case '*':
			left *= right
		case '/':
			if right == 0 {
				return 0, errors.New("division by zero")
			}
			left /= right
		case '%':
			if right == 0 {
				return 0, errors.New("modulo by zero")
			}
			left = math.Mod(left, right)
		}
	}
}

func (p *arithParser) unary(depth int) (float64, error) {
	if depth > maxExpressionDepth {
		return 0, errors.New("expression nested too deeply")
	}
	switch {
	case p.peek("-"):
		p.pos++
		v, err := p.unary(depth + 1)
		return -v, err
	case p.peek("+"):
		p.pos++
		return p.unary(depth + 1)
	}
	return p.power(depth)
}

func (p *arithParser) power(depth int) (float64, error) {
	base, err := p.primary(depth)
	if err != nil {
		return 0, err
	}
	switch {
	case p.peek("**"):
		p.pos += 2
	case p.peek("^"):
		p.pos++
	default:
		return base, nil
	}
	exp, err := p.unary(depth + 1)
	if err != nil {
		return 0, err
	}
	return math.Pow(base, exp), nil
}

func (p *arithParser) primary(depth int) (float64, error) {
	p.skipSpace()
	if p.pos >= len(p.src) {
		return 0, errors.New("unexpected end of expression")
	}
	c := p.src[p.pos]
	switch {
	case c == '(':
		p.pos++
		v, err := p.expr(depth + 1)
		if err != nil {
			return 0, err
		}
		if !p.peek(")") {
			return 0, errors.New("missing closing parenthesis")
		}
		p.pos++
		return v, nil
	case c >= '0' && c <= '9' || c == '.':
		return p.number()
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		start := p.pos
		for p.pos < len(p.src) && (p.src[p.pos] >= 'a' && p.src[p.pos] <= 'z' || p.src[p.pos] >= 'A' && p.src[p.pos] <= 'Z' || p.src[p.pos] >= '0' && p.src[p.pos] <= '9') {
			p.pos++
		}
		name := strings.ToLower(p.src[start:p.pos])
		if v, ok := arithConstants[name]; ok {
			return v, nil
		}
		f, ok := arithFunctions[name]
		if !ok {
			return 0, fmt.Errorf("unknown name %q", p.src[start:p.pos])
		}
		if !p.peek("(") {
			return 0, fmt.Errorf("%s needs parentheses: %s(x)", name, name)
		}
		p.pos++
		arg, err := p.expr(depth + 1)
		if err != nil {
			return 0, err
		}
		if !p.peek(")") {
			return 0, errors.New("missing closing parenthesis")
		}
		p.pos++
		return f(arg), nil
	}
	return 0, fmt.Errorf("unexpected %q at position %d", c, p.pos+1)
}

func (p *arithParser) number() (float64, error) {
	start := p.pos
	digits := func() {
		for p.pos < len(p.src) && (p.src[p.pos] >= '0' && p.src[p.pos] <= '9' || p.src[p.pos] == '_') {
			p.pos++
		}
	}
	digits()
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		digits()
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		save := p.pos
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			digits()
		} else {
			p.pos = save // a bare `2e` is not an exponent; the `e` is left to be rejected
		}
	}
	text := strings.ReplaceAll(p.src[start:p.pos], "_", "")
	v, err := strconv.ParseFloat(text, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("number %s is too large", p.src[start:p.pos])
	}
	if err != nil {
		return 0, fmt.Errorf("bad number %q", p.src[start:p.pos])
	}
	return v, nil
}
