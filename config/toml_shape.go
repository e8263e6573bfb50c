package config

import (
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// tomlShape is where things are in a TOML file: keys (dotted paths, list
// elements as [i]) and string list entries ("path=value") → 1-based line.
type tomlShape struct {
	keys   map[string]int
	values map[string]int
}

// scanTOML records positions with go-toml's position-aware parser. It is
// only called on documents that already decoded, so errors are ignored.
func scanTOML(data []byte) tomlShape {
	shape := tomlShape{keys: map[string]int{}, values: map[string]int{}}
	p := unstable.Parser{}
	p.Reset(data)
	table := ""
	arrayCounts := map[string]int{}
	line := func(n *unstable.Node) int { return p.Shape(n.Raw).Start.Line }
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			table = keyPath(e.Key())
			shape.keys[table] = firstKeyLine(&p, e)
		case unstable.ArrayTable:
			base := keyPath(e.Key())
			i := arrayCounts[base]
			arrayCounts[base] = i + 1
			table = fmt.Sprintf("%s[%d]", base, i)
			shape.keys[table] = firstKeyLine(&p, e)
		case unstable.KeyValue:
			full := join(table, keyPath(e.Key()))
			shape.keys[full] = firstKeyLine(&p, e)
			recordValue(&p, shape, full, e.Value(), line)
			// A rule table is found again by its rule text.
			if strings.HasSuffix(full, ".rule") && strings.HasPrefix(full, "tools.rules[") && e.Value().Kind == unstable.String {
				shape.values["tools.rules="+string(e.Value().Data)] = shape.keys[full]
			}
		}
	}
	return shape
}

func recordValue(p *unstable.Parser, shape tomlShape, full string, v *unstable.Node, line func(*unstable.Node) int) {
	switch v.Kind {
	case unstable.Array:
		list := stripIndex(full)
		it := v.Children()
		for i := 0; it.Next(); i++ {
			n := it.Node()
			if n.Kind == unstable.String {
				shape.values[list+"="+string(n.Data)] = line(n)
			}
			recordValue(p, shape, fmt.Sprintf("%s[%d]", full, i), n, line)
		}
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			kv := it.Node()
			if kv.Kind != unstable.KeyValue {
				continue
			}
			sub := join(full, keyPath(kv.Key()))
			shape.keys[sub] = firstKeyLine(p, kv)
			recordValue(p, shape, sub, kv.Value(), line)
		}
	}
}

// stripIndex turns tools.presets.$x.approve into itself and a[0].b into a.b,
// so list entries are found by the list's logical key.
func stripIndex(path string) string {
	var b strings.Builder
	depth := 0
	for _, r := range path {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func keyPath(it unstable.Iterator) string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return strings.Join(parts, ".")
}

func firstKeyLine(p *unstable.Parser, n *unstable.Node) int {
	it := n.Key()
	if it.Next() {
		k := it.Node()
		if k.Raw.Length > 0 {
			return p.Shape(k.Raw).Start.Line
		}
	}
	return 0
}
