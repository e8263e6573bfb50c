package plugin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Binaries built once for the whole package.
var (
	testPluginBin string // testdata/testplugin
	wordcountBin  string // examples/wordcount-plugin
)

func TestMain(m *testing.M) {
	if path := os.Getenv(parentModeEnv); path != "" {
		os.Exit(parentMain(path)) // a stand-in for chatls in TestPluginDiesWithChatls
	}
	dir, err := os.MkdirTemp("", "chatls-plugin-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testPluginBin = filepath.Join(dir, "testplugin")
	wordcountBin = filepath.Join(dir, "wordcount-plugin")
	for bin, pkg := range map[string]string{
		testPluginBin: "./testdata/testplugin",
		wordcountBin:  "github.com/chatls/chatls/examples/wordcount-plugin",
	} {
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
