// Package acp is chatls as a client of the Agent Client Protocol (SPEC §12):
// it starts an external coding agent (Claude Code, Codex, Gemini CLI,
// OpenCode …) as a process, speaks ACP to it over stdin/stdout, hands the
// agent's requests (permissions, files, terminals) to a Client the session
// implements, and turns the agent's session/update stream into Updates and,
// through Transcript, into Flemma text.
//
// The wire is github.com/coder/acp-go-sdk's Connection and types; this
// package adds what a language server needs around it: the process and its
// group, faults that name their cause, ordered delivery, cancel that waits
// for the agent's answer, and rendering. It knows nothing of LSP or of the
// session.
package acp
