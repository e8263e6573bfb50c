package frontmatter

import (
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/luavm"
)

// luaChunkName is how Lua errors name the frontmatter ("frontmatter:3: …").
const luaChunkName = "frontmatter"

// evaluateLua runs the frontmatter in the sandboxed VM (luavm) with a
// `flemma.opt` that records option changes. Options recorded before an
// error are kept (they are what the script did); Evaluation.Error says the
// run was incomplete.
func evaluateLua(fm *source) []chatdoc.Diagnostic {
	vm := luavm.New("the frontmatter")
	defer vm.Close()
	vm.Reserve("flemma")
	rec := &optRecorder{fm: fm, vm: vm}
	rec.install(vm.L)
	err := vm.Run(luaChunkName, fm.Code)
	fm.Vars = vm.Vars()
	if err == nil {
		return nil
	}
	return []chatdoc.Diagnostic{luaErrorDiagnostic(fm, err)}
}

func luaErrorDiagnostic(fm *source, err error) chatdoc.Diagnostic {
	line, msg := luavm.ErrorLine(luaChunkName, err)
	span := chatdoc.Span{Start: 0, End: fm.codeStart - 1}
	if line > 0 {
		span = codeLineSpan(fm, line)
	}
	return diag(span, chatdoc.SeverityError, chatdoc.CodeFrontmatterError, "", "Frontmatter error: %s", msg)
}
