// Package cycle is the approval cycle of SPEC §2 as pure decisions: what a
// client edit means (Observe), which placeholders to insert (Categorize),
// which blocks to resolve, reset or run (Resolve), whether a tool may start
// (Gate), what is left to do (Report) and what each block shows
// (Diagnostics, Actions). It does no I/O, holds no locks and knows no LSP
// types: the server guards a Ledger per document, asks the policy and the
// execution journal through Facts, and carries the plans out.
package cycle
