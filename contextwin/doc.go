// Package contextwin is the context window of SPEC §11, as pure code: how
// big the next request is (Estimate), how full the model's window is
// (Share, Meter, LevelAt and the texts that say so), where a conversation
// can be cut (CutPoint), the compacted document and its archive (Compact,
// ArchiveName), what the summary request carries (SummaryRequest), and the
// cheaper step of trimming old tool outputs (Trim).
//
// It reads a parsed chatdoc.Document and returns text and edits; it runs no
// model, reads no file and knows no LSP type. The session decides when to
// call it and sends what it builds.
package contextwin
