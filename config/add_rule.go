package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// AddRule appends rule to the list tools.SECTION ("autoApprove" or "deny")
// of the TOML file at path by editing its text, so comments and layout
// survive. When the file sets tools.autoApprove it is extended; otherwise
// tools.autoApproveAppend is used (created if missing), which adds to the
// inherited list instead of replacing it. Missing files are created. A rule
// already in the list is not added twice.
func AddRule(path, rule, section string) error {
	if section == "" {
		section = "autoApprove"
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > 0 {
		var probe map[string]any
		if err := toml.Unmarshal(data, &probe); err != nil {
			return fmt.Errorf("%w; fix the file before adding rules to it", tomlError(path, data, err))
		}
	}
	out, err := addRuleText(data, rule, section)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if bytes.Equal(out, data) {
		return nil
	}
	return writeReplacing(path, out)
}

// addRuleText is AddRule on file contents.
func addRuleText(data []byte, rule, section string) ([]byte, error) {
	keys := []string{"tools." + section}
	if section == "autoApprove" {
		keys = append(keys, "tools.autoApproveAppend")
	}
	loc := locateLists(data)
	for _, k := range keys {
		if l, ok := loc.lists[k]; ok {
			if l.values[rule] {
				return data, nil
			}
			return insertIntoArray(data, l, rule), nil
		}
	}
	if _, ok := loc.inline["tools"]; ok {
		return nil, errors.New("tools is an inline table; add the rule by hand or turn it into a [tools] section")
	}
	key := section
	if section == "autoApprove" {
		key = "autoApproveAppend"
	}
	line := key + " = [" + tomlString(rule) + "]"
	nl := newline(data)
	if at, ok := loc.tables["tools"]; ok {
		// Right after the [tools] header line.
		end := bytes.IndexByte(data[at:], '\n')
		if end < 0 {
			return append(append(append([]byte{}, data...), nl...), line+nl...), nil
		}
		pos := at + end + 1
		return splice(data, pos, pos, line+nl), nil
	}
	var b bytes.Buffer
	b.Write(data)
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		b.WriteString(nl)
	}
	if len(data) > 0 {
		b.WriteString(nl)
	}
	b.WriteString("[tools]" + nl + line + nl)
	return b.Bytes(), nil
}

type listLoc struct {
	open, close int // offsets of [ and the matching ]
	lastEnd     int // end offset of the last element, -1 if empty
	lastStart   int
	values      map[string]bool
}

type fileLayout struct {
	lists  map[string]listLoc
	tables map[string]int // [table] header offset
	inline map[string]bool
}

func locateLists(data []byte) fileLayout {
	lay := fileLayout{lists: map[string]listLoc{}, tables: map[string]int{}, inline: map[string]bool{}}
	p := unstable.Parser{}
	p.Reset(data)
	table := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyPath(e.Key())
			if e.Kind == unstable.Table {
				it := e.Key()
				if it.Next() {
					start := int(it.Node().Raw.Offset)
					if i := bytes.LastIndexByte(data[:start], '['); i >= 0 {
						lay.tables[table] = i
					}
				}
			}
		case unstable.KeyValue:
			full := join(table, keyPath(e.Key()))
			v := e.Value()
			if v.Kind == unstable.InlineTable {
				lay.inline[full] = true
			}
			if v.Kind != unstable.Array {
				continue
			}
			it := e.Key()
			keyEnd := 0
			for it.Next() {
				keyEnd = int(it.Node().Raw.Offset + it.Node().Raw.Length)
			}
			eq := bytes.IndexByte(data[keyEnd:], '=')
			if eq < 0 {
				continue
			}
			open := bytes.IndexByte(data[keyEnd+eq:], '[')
			if open < 0 {
				continue
			}
			l := listLoc{open: keyEnd + eq + open, lastEnd: -1, values: map[string]bool{}}
			ch := v.Children()
			for ch.Next() {
				n := ch.Node()
				l.lastStart = int(n.Raw.Offset)
				l.lastEnd = int(n.Raw.Offset + n.Raw.Length)
				if n.Kind == unstable.String {
					l.values[string(n.Data)] = true
				}
			}
			from := l.open + 1
			if l.lastEnd > 0 {
				from = l.lastEnd
			}
			l.close = closingBracket(data, from)
			if l.close < 0 {
				continue
			}
			lay.lists[full] = l
		}
	}
	return lay
}

// closingBracket finds the ] that closes the array, skipping comments.
func closingBracket(data []byte, from int) int {
	for i := from; i < len(data); i++ {
		switch data[i] {
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case ']':
			return i
		}
	}
	return -1
}

func insertIntoArray(data []byte, l listLoc, rule string) []byte {
	item := tomlString(rule)
	if l.lastEnd < 0 {
		return splice(data, l.open+1, l.close, item)
	}
	between := data[l.lastEnd:l.close]
	hasComma := bytes.HasPrefix(bytes.TrimLeft(between, " \t"), []byte(","))
	closeLine := bytes.LastIndexByte(data[:l.close], '\n') + 1
	if !bytes.Contains(between, []byte("\n")) || strings.TrimSpace(string(data[closeLine:l.close])) != "" {
		// The bracket follows the last element: ["a", "b"] → ["a", "b", "new"].
		if hasComma {
			c := l.lastEnd + bytes.IndexByte(between, ',') + 1
			return splice(data, c, c, " "+item)
		}
		return splice(data, l.lastEnd, l.lastEnd, ", "+item)
	}
	// Multi-line: a new line indented like the last element, before the bracket's line.
	lineStart := bytes.LastIndexByte(data[:l.lastStart], '\n') + 1
	indent := string(data[lineStart:l.lastStart])
	if strings.TrimSpace(indent) != "" {
		indent = "  "
	}
	out := splice(data, closeLine, closeLine, indent+item+","+newline(data))
	if !hasComma {
		out = splice(out, l.lastEnd, l.lastEnd, ",")
	}
	return out
}

func splice(data []byte, from, to int, s string) []byte {
	out := make([]byte, 0, len(data)+len(s))
	out = append(out, data[:from]...)
	out = append(out, s...)
	return append(out, data[to:]...)
}

// tomlString quotes s: "…" like most files, '…' when the rule holds " or \.
func tomlString(s string) string {
	if !strings.ContainsAny(s, "\"\\\n\r\t") {
		return `"` + s + `"`
	}
	if !strings.ContainsAny(s, "'\n\r") {
		return "'" + s + "'"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func newline(data []byte) string {
	if bytes.Contains(data, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// writeReplacing writes through a temp file and rename, keeping the mode.
func writeReplacing(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".chatls-*.toml")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
