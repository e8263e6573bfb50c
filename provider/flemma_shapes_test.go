package provider

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/frontmatter"
)

// The Flemma 0.12–0.14 documents of chatdoc/testdata/flemma, as chatls
// sends them: the body is testdata/golden/flemma/NAME.API.json (rewrite
// with -update, then read the diff). A document whose frontmatter chooses
// the model (0.14's model string) is sent to the model it chooses; the
// others to Anthropic, and some to the Responses API as well.

var flemmaShapeAPIs = map[string][]string{
	"01-dotted-names":        {"openai"},
	"03-background-job":      {"openai"},
	"12-orphan-earlier-turn": {"openai"},
}

func TestFlemmaShapesRequestBodies(t *testing.T) {
	files, err := filepath.Glob("../chatdoc/testdata/flemma/*.chat")
	if err != nil || len(files) == 0 {
		t.Fatalf("no documents: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".chat")
		path, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		doc := chatdoc.Parse(string(text))
		for _, api := range append([]string{"anthropic"}, flemmaShapeAPIs[name]...) {
			t.Run(name+"."+api, func(t *testing.T) {
				p, problems := BuildPrompt(doc, PromptOptions{DocPath: path, Tools: goldenTools})
				p.CacheKey = "chatls-testkey" // a hash of the path, which differs per checkout
				model, params := map[string]string{"anthropic": "claude-sonnet-4-6", "openai": "gpt-5.4"}[api], map[string]any(nil)
				if doc.Frontmatter != nil {
					ev := frontmatter.Evaluate(doc.Frontmatter)
					sel, sp, err := Select(config.Merge(), mustEntries(t, nil), ev.Options)
					if ev.Error != "" || err != nil || len(sp) != 0 {
						t.Fatalf("frontmatter: %q %v %v", ev.Error, err, sp)
					}
					api, model, params = sel.Entry.API, sel.Model, sel.Parameters
				}
				body := bodyFor(t, api, model, p, problems, params)
				var pretty bytes.Buffer
				if err := json.Indent(&pretty, body, "", "  "); err != nil {
					t.Fatal(err)
				}
				pretty.WriteString("\n")
				for _, pr := range problems {
					pretty.WriteString("problem: " + pr.Message + "\n")
				}
				file := filepath.Join("testdata", "golden", "flemma", name+"."+api+".json")
				checkGoldenBody(t, file, pretty.Bytes())
			})
		}
	}
}
