package chatdoc

import "github.com/chatls/chatls/luavm"

// luaChunkName is how Lua errors name the frontmatter ("frontmatter:3: …").
const luaChunkName = "frontmatter"

// evaluateLua runs the frontmatter in the sandboxed VM (luavm) with a
// `flemma.opt` that records option changes. Options recorded before an
// error are kept (they are what the script did); Frontmatter.Error says the
// run was incomplete.
func evaluateLua(fm *Frontmatter) []Diagnostic {
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
	return []Diagnostic{luaErrorDiagnostic(fm, err)}
}

func luaErrorDiagnostic(fm *Frontmatter, err error) Diagnostic {
	line, msg := luavm.ErrorLine(luaChunkName, err)
	span := Span{0, fm.codeStart - 1}
	if line > 0 {
		span = codeLineSpan(fm, line)
	}
	return diag(span, SeverityError, CodeFrontmatterError, "", "Frontmatter error: %s", msg)
}

// TemplateVM is a VM holding the frontmatter's variables, for the
// document's templates (SPEC §7: the same sandboxed VM as the frontmatter).
// A Lua frontmatter runs again in it, so its functions are there too; its
// option changes are recorded into a copy and dropped. nil fm: an empty VM.
// The caller closes the VM.
func TemplateVM(fm *Frontmatter) *luavm.VM {
	vm := luavm.New("the templates")
	vm.Reserve("flemma")
	if fm == nil {
		return vm
	}
	switch fm.Language {
	case "lua":
		scratch := *fm
		rec := &optRecorder{fm: &scratch, vm: vm}
		rec.install(vm.L)
		_ = vm.Run(luaChunkName, fm.Code) // its error is the frontmatter's diagnostic already
	default:
		vm.SetVars(fm.Vars)
	}
	return vm
}
