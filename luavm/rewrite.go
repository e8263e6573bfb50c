package luavm

import (
	"fmt"

	"github.com/yuin/gopher-lua/ast"
)

// The frontmatter's syntax tree is checked and rewritten before it is
// compiled, so that what the VM does in one instruction (and so between two
// budget checks) can't allocate without bound:
//
//   - `a .. b .. c`            → concat(a, b, c)        (size checked first)
//   - `t[k] = v`, `t.k = v`    → setIndex(t, k, v)      (a new key is charged)
//   - `function t.f() … end`   → setIndex(t, "f", fn(function() … end))
//   - `{ … }`                  → newTable({ … })        (its entries are charged)
//   - `function … end`         → newFunction(function … end)
//
// The functions are locals of the chunk whose names no Lua source can spell
// (they contain a NUL byte), so a script can neither call nor replace them.

var hiddenNames = []string{"\x00concat", "\x00setIndex", "\x00newTable", "\x00newFunction"}

const (
	hidConcat = iota
	hidSetIndex
	hidNewTable
	hidNewFunction
)

// luaDepthError reports where the syntax tree nests too deeply, in the form
// of a runtime error (CHUNK:LINE: …) so ErrorLine finds the line.
type luaDepthError struct {
	chunk, what string
	line        int
}

func (e luaDepthError) Error() string {
	return fmt.Sprintf("%s:%d: %s is nested too deeply (over %d levels)", e.chunk, e.line, e.what, luaMaxNesting)
}

// checkDepth walks the tree without going deeper than luaMaxNesting (the
// compiler recurses once per level; a million nested tables would overflow
// the stack).
func checkDepth(stmts []ast.Stmt, chunk, what string) error {
	var err error
	var walk func(n any, depth int)
	walk = func(n any, depth int) {
		if err != nil || n == nil {
			return
		}
		if depth > luaMaxNesting {
			line := 0
			if p, ok := n.(ast.PositionHolder); ok {
				line = p.Line()
			}
			err = luaDepthError{chunk, what, line}
			return
		}
		forEachChild(n, func(c any) { walk(c, depth+1) })
	}
	for _, s := range stmts {
		walk(s, 1)
	}
	return err
}

// forEachChild calls f with every statement and expression directly inside n.
func forEachChild(n any, f func(any)) {
	exprs := func(list []ast.Expr) {
		for _, e := range list {
			f(e)
		}
	}
	stmts := func(list []ast.Stmt) {
		for _, s := range list {
			f(s)
		}
	}
	switch n := n.(type) {
	case *ast.AssignStmt:
		exprs(n.Lhs)
		exprs(n.Rhs)
	case *ast.LocalAssignStmt:
		exprs(n.Exprs)
	case *ast.FuncCallStmt:
		f(n.Expr)
	case *ast.DoBlockStmt:
		stmts(n.Stmts)
	case *ast.WhileStmt:
		f(n.Condition)
		stmts(n.Stmts)
	case *ast.RepeatStmt:
		f(n.Condition)
		stmts(n.Stmts)
	case *ast.IfStmt:
		f(n.Condition)
		stmts(n.Then)
		stmts(n.Else)
	case *ast.NumberForStmt:
		f(n.Init)
		f(n.Limit)
		if n.Step != nil {
			f(n.Step)
		}
		stmts(n.Stmts)
	case *ast.GenericForStmt:
		exprs(n.Exprs)
		stmts(n.Stmts)
	case *ast.FuncDefStmt:
		if n.Name.Func != nil {
			f(n.Name.Func)
		}
		if n.Name.Receiver != nil {
			f(n.Name.Receiver)
		}
		f(n.Func)
	case *ast.ReturnStmt:
		exprs(n.Exprs)
	case *ast.AttrGetExpr:
		f(n.Object)
		f(n.Key)
	case *ast.TableExpr:
		for _, fl := range n.Fields {
			if fl.Key != nil {
				f(fl.Key)
			}
			f(fl.Value)
		}
	case *ast.FuncCallExpr:
		if n.Func != nil {
			f(n.Func)
		}
		if n.Receiver != nil {
			f(n.Receiver)
		}
		exprs(n.Args)
	case *ast.LogicalOpExpr:
		f(n.Lhs)
		f(n.Rhs)
	case *ast.RelationalOpExpr:
		f(n.Lhs)
		f(n.Rhs)
	case *ast.StringConcatOpExpr:
		f(n.Lhs)
		f(n.Rhs)
	case *ast.ArithmeticOpExpr:
		f(n.Lhs)
		f(n.Rhs)
	case *ast.UnaryMinusOpExpr:
		f(n.Expr)
	case *ast.UnaryNotOpExpr:
		f(n.Expr)
	case *ast.UnaryLenOpExpr:
		f(n.Expr)
	case *ast.FunctionExpr:
		stmts(n.Stmts)
	}
}

// instrument rewrites the chunk (see the file comment) and declares the
// hidden locals, which the chunk receives as its arguments.
func instrument(stmts []ast.Stmt) []ast.Stmt {
	decl := &ast.LocalAssignStmt{Names: hiddenNames, Exprs: []ast.Expr{&ast.Comma3Expr{}}}
	return append([]ast.Stmt{decl}, rewriteStmts(stmts)...)
}

func hiddenCall(which int, line int, args ...ast.Expr) *ast.FuncCallExpr {
	fn := &ast.IdentExpr{Value: hiddenNames[which]}
	fn.SetLine(line)
	call := &ast.FuncCallExpr{Func: fn, Args: args}
	call.SetLine(line)
	call.SetLastLine(line)
	return call
}

func callStmt(call *ast.FuncCallExpr, line int) *ast.FuncCallStmt {
	s := &ast.FuncCallStmt{Expr: call}
	s.SetLine(line)
	s.SetLastLine(line)
	return s
}

func rewriteStmts(list []ast.Stmt) []ast.Stmt {
	out := make([]ast.Stmt, 0, len(list))
	for _, s := range list {
		out = append(out, rewriteStmt(s)...)
	}
	return out
}

func rewriteExprs(list []ast.Expr) {
	for i, e := range list {
		list[i] = rewriteExpr(e)
	}
}

func rewriteStmt(s ast.Stmt) []ast.Stmt {
	line := s.Line()
	switch s := s.(type) {
	case *ast.AssignStmt:
		return rewriteAssign(s)
	case *ast.LocalAssignStmt:
		if len(s.Names) == 1 && len(s.Exprs) == 1 {
			if _, ok := s.Exprs[0].(*ast.FunctionExpr); ok {
				// `local function f` sees itself: declare, then assign.
				decl := &ast.LocalAssignStmt{Names: s.Names, Exprs: []ast.Expr{}}
				decl.SetLine(line)
				name := &ast.IdentExpr{Value: s.Names[0]}
				name.SetLine(line)
				assign := &ast.AssignStmt{Lhs: []ast.Expr{name}, Rhs: []ast.Expr{rewriteExpr(s.Exprs[0])}}
				assign.SetLine(line)
				assign.SetLastLine(s.LastLine())
				return []ast.Stmt{decl, assign}
			}
		}
		rewriteExprs(s.Exprs)
	case *ast.FuncCallStmt:
		s.Expr = rewriteExpr(s.Expr)
	case *ast.DoBlockStmt:
		s.Stmts = rewriteStmts(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = rewriteExpr(s.Condition)
		s.Stmts = rewriteStmts(s.Stmts)
	case *ast.RepeatStmt:
		s.Condition = rewriteExpr(s.Condition)
		s.Stmts = rewriteStmts(s.Stmts)
	case *ast.IfStmt:
		s.Condition = rewriteExpr(s.Condition)
		s.Then = rewriteStmts(s.Then)
		s.Else = rewriteStmts(s.Else)
	case *ast.NumberForStmt:
		s.Init, s.Limit = rewriteExpr(s.Init), rewriteExpr(s.Limit)
		if s.Step != nil {
			s.Step = rewriteExpr(s.Step)
		}
		s.Stmts = rewriteStmts(s.Stmts)
	case *ast.GenericForStmt:
		rewriteExprs(s.Exprs)
		s.Stmts = rewriteStmts(s.Stmts)
	case *ast.FuncDefStmt:
		fn := s.Func
		if s.Name.Func == nil { // function obj:m(…): an explicit self
			fn.ParList.Names = append([]string{"self"}, fn.ParList.Names...)
			key := &ast.StringExpr{Value: s.Name.Method}
			key.SetLine(line)
			call := hiddenCall(hidSetIndex, line, rewriteExpr(s.Name.Receiver), key, rewriteExpr(fn))
			return []ast.Stmt{callStmt(call, line)}
		}
		assign := &ast.AssignStmt{Lhs: []ast.Expr{s.Name.Func}, Rhs: []ast.Expr{fn}}
		assign.SetLine(line)
		assign.SetLastLine(s.LastLine())
		return rewriteAssign(assign)
	case *ast.ReturnStmt:
		rewriteExprs(s.Exprs)
	}
	return []ast.Stmt{s}
}

// rewriteAssign turns assignments to table fields into setIndex calls.
// Lua 5.1 evaluates the targets' tables and keys, then the values, then
// assigns; with several targets temporaries keep that order.
func rewriteAssign(s *ast.AssignStmt) []ast.Stmt {
	line := s.Line()
	rewriteExprs(s.Rhs)
	indexed := false
	for _, e := range s.Lhs {
		if _, ok := e.(*ast.AttrGetExpr); ok {
			indexed = true
		}
	}
	if !indexed {
		return []ast.Stmt{s}
	}
	if len(s.Lhs) == 1 && len(s.Rhs) == 1 {
		t := s.Lhs[0].(*ast.AttrGetExpr)
		call := hiddenCall(hidSetIndex, line, rewriteExpr(t.Object), rewriteExpr(t.Key), s.Rhs[0])
		return []ast.Stmt{callStmt(call, line)}
	}
	tmp := func(kind string, i int) *ast.IdentExpr {
		e := &ast.IdentExpr{Value: fmt.Sprintf("\x00%s%d", kind, i)}
		e.SetLine(line)
		return e
	}
	var targetNames, valueNames []string
	var targetExprs []ast.Expr
	for i, e := range s.Lhs {
		if t, ok := e.(*ast.AttrGetExpr); ok {
			targetNames = append(targetNames, tmp("t", i).Value, tmp("k", i).Value)
			targetExprs = append(targetExprs, rewriteExpr(t.Object), rewriteExpr(t.Key))
		}
		valueNames = append(valueNames, tmp("v", i).Value)
	}
	body := []ast.Stmt{}
	if len(targetNames) > 0 {
		decl := &ast.LocalAssignStmt{Names: targetNames, Exprs: targetExprs}
		decl.SetLine(line)
		body = append(body, decl)
	}
	values := &ast.LocalAssignStmt{Names: valueNames, Exprs: s.Rhs}
	values.SetLine(line)
	body = append(body, values)
	for i := len(s.Lhs) - 1; i >= 0; i-- { // Lua assigns right to left
		if _, ok := s.Lhs[i].(*ast.AttrGetExpr); ok {
			body = append(body, callStmt(hiddenCall(hidSetIndex, line, tmp("t", i), tmp("k", i), tmp("v", i)), line))
			continue
		}
		a := &ast.AssignStmt{Lhs: []ast.Expr{s.Lhs[i]}, Rhs: []ast.Expr{tmp("v", i)}}
		a.SetLine(line)
		body = append(body, a)
	}
	block := &ast.DoBlockStmt{Stmts: body}
	block.SetLine(line)
	block.SetLastLine(s.LastLine())
	return []ast.Stmt{block}
}

func rewriteExpr(e ast.Expr) ast.Expr {
	if e == nil {
		return nil
	}
	line := e.Line()
	switch e := e.(type) {
	case *ast.AttrGetExpr:
		e.Object, e.Key = rewriteExpr(e.Object), rewriteExpr(e.Key)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			f.Key, f.Value = rewriteExpr(f.Key), rewriteExpr(f.Value)
		}
		return hiddenCall(hidNewTable, line, e)
	case *ast.FuncCallExpr:
		e.Func, e.Receiver = rewriteExpr(e.Func), rewriteExpr(e.Receiver)
		rewriteExprs(e.Args)
	case *ast.LogicalOpExpr:
		e.Lhs, e.Rhs = rewriteExpr(e.Lhs), rewriteExpr(e.Rhs)
	case *ast.RelationalOpExpr:
		e.Lhs, e.Rhs = rewriteExpr(e.Lhs), rewriteExpr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		e.Lhs, e.Rhs = rewriteExpr(e.Lhs), rewriteExpr(e.Rhs)
	case *ast.StringConcatOpExpr:
		// `a .. b .. c` is right-associative: collect the chain's operands.
		var args []ast.Expr
		var cur ast.Expr = e
		for {
			c, ok := cur.(*ast.StringConcatOpExpr)
			if !ok {
				break
			}
			args = append(args, rewriteExpr(c.Lhs))
			cur = c.Rhs
		}
		args = append(args, rewriteExpr(cur))
		// Each operand is one value, as in an expression (not all results
		// of a call or of `...`).
		for _, a := range args {
			switch a := a.(type) {
			case *ast.FuncCallExpr:
				a.AdjustRet = true
			case *ast.Comma3Expr:
				a.AdjustRet = true
			}
		}
		return hiddenCall(hidConcat, line, args...)
	case *ast.UnaryMinusOpExpr:
		e.Expr = rewriteExpr(e.Expr)
	case *ast.UnaryNotOpExpr:
		e.Expr = rewriteExpr(e.Expr)
	case *ast.UnaryLenOpExpr:
		e.Expr = rewriteExpr(e.Expr)
	case *ast.FunctionExpr:
		e.Stmts = rewriteStmts(e.Stmts)
		return hiddenCall(hidNewFunction, line, e)
	}
	return e
}
