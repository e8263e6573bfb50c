package frontmatter

import (
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/luavm"
)

// TemplateVM is a VM holding the frontmatter's variables, for the
// document's templates (SPEC §7: the same sandboxed VM as the frontmatter).
// A Lua frontmatter runs again in it, so its functions are there too; its
// option changes are recorded into a scratch source and dropped. nil fm: an
// empty VM. Not memoised: the templates run in the VM and change it. The
// caller closes the VM.
func TemplateVM(fm *chatdoc.Frontmatter) *luavm.VM {
	vm := luavm.New("the templates")
	vm.Reserve("flemma")
	if fm == nil {
		return vm
	}
	switch fm.Language {
	case "lua":
		scratch := &source{Code: fm.Code, codeStart: fm.CodeStart}
		rec := &optRecorder{fm: scratch, vm: vm}
		rec.install(vm.L)
		_ = vm.Run(luaChunkName, fm.Code) // its error is the frontmatter's diagnostic already
	default:
		vm.SetVars(Evaluate(fm).Vars)
	}
	return vm
}
