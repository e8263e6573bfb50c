// Package procgroup runs a child program (a plugin, a stdio MCP server) so
// that nothing it starts outlives it or chatls: the child leads its own
// process group, gets SIGKILL when chatls dies (Linux: the parent-death
// signal), and the caller kills the whole group once the leader has exited,
// so background jobs the child left behind go with it.
//
// Limit: if chatls is killed with SIGKILL, only the direct child is signalled;
// processes it spawned keep running until they notice (their stdin and stdout
// pipes are closed by then).
package procgroup
